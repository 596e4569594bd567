/** What the prompts area uses of the llm-gateway area: the one module of llm-gateway it imports. */
export { modelReferenceRefusal } from './catalog.ts';
