/** What the prompts area uses of the knowledge area: whether a test case's base exists. */
export { existingBases } from './base-lookups.ts';
