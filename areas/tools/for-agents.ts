/** What the agents area uses of the tools area: the tools' types (run, parameters, output, approval), readers and kbStatus. */
export { needsApproval } from './approval.ts';
export { modelOutput, runTool, toolParameters } from './built-in/run-tool.ts';
export { refreshToolsKbStatusAfter } from './kb-status.ts';
export { activeToolIds, readTools } from './lookups.ts';
export type { ToolItem } from './records.ts';
