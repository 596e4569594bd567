/** What the llm-gateway area uses of the vault area: the one module of vault it imports. */
export { readSecret } from './store.ts';
