/**
 * What the agents area uses of the tools area: the tools' types (run, parameters, output, approval),
 * the functions a tool gives the model (an MCP tool gives one per allowed server tool), readers and kbStatus.
 */
export { needsApproval } from './approval.ts';
export { modelOutput, runTool, toolParameters } from './built-in/run-tool.ts';
export { refreshToolsKbStatusAfter } from './kb-status.ts';
export { activeToolIds, readTools } from './lookups.ts';
export type { ToolItem } from './records.ts';
export { functionName, functionNamed, functionsOf, type ToolFunction } from './mcp/server-tools.ts';
