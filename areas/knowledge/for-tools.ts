/** What the tools area uses of the knowledge area: the one module of knowledge it imports. */
export { refreshToolsKbStatusAfter } from './tool-status.ts';
