/** What the agents area uses of the knowledge area: the one module of knowledge it imports. */
export { kbKey } from './records.ts';
export { retrieve } from './retrieve.ts';
export type { Match } from './retrieve.ts';
export { refreshToolsKbStatusAfter } from './tool-status.ts';
