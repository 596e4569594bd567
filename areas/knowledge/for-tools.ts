/** What the tools area uses of the knowledge area: the bases' chunk counts a tool's kbStatus sums. */
export { baseChunkCounts } from './base-lookups.ts';
