/** What the knowledge area uses of the tools area: the one module of tools it imports. */
export { tools } from './records.ts';
