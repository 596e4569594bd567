/** What the agents area uses of the knowledge area: which bases exist, and retrieval. */
export { existingBases } from './base-lookups.ts';
export { retrieve } from './retrieve.ts';
export type { Match } from './retrieve.ts';
