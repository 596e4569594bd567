/** What the agents area uses of the llm-gateway area: the one module of llm-gateway it imports. */
export { tokenAllowance } from './allowance.ts';
export { defaultModel, getModel, listModels } from './catalog.ts';
export { MODEL_CALL_REFUSALS } from './errors.ts';
export { chat, chatStream } from './chat.ts';
export type { ChatMessage, ToolCall, ToolDef, Usage } from './chat.ts';
export { MODEL_KINDS } from './limits.ts';
export { monthTokensUsed } from './allowance.ts';
export type { Caller } from './records.ts';
