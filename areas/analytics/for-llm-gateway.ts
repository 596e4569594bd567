/** What the llm-gateway area uses of the analytics area: the one module of analytics it imports. */
export { ingest } from './ingest.ts';
export { resolveRange } from './range.ts';
export type { Contribution } from './aggregate.ts';
