/** What the conversations area uses of the llm-gateway area: the one module of llm-gateway it imports. */
export { MODEL_CALL_REFUSALS, tokenLimitReached } from './errors.ts';
