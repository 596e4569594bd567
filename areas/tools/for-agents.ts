/** What the agents area uses of the tools area: the one module of tools it imports. */
export { runTool } from './executors/run-tool.ts';
export { toolParameters } from './executors/parameters.ts';
export { activeToolIds, readTools } from './lookups.ts';
export type { ToolItem } from './records.ts';
export { needsApproval } from './approval.ts';
export { refreshToolsKbStatusAfter } from './kb-status.ts';
