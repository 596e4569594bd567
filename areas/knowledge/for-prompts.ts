/** What the prompts area uses of the knowledge area: the one module of knowledge it imports. */
export { kbKey } from './records.ts';
