/** What the knowledge area uses of the llm-gateway area: the one module of llm-gateway it imports. */
export { embed } from './embed.ts';
export { rerank } from './rerank.ts';
export { modelReferenceRefusal } from './catalog.ts';
export { MODEL_CALL_REFUSALS } from './errors.ts';
export type { Caller } from './embed.ts';
export { cosine } from './providers/hashing-embedder.ts';
export { countTokens, decodeTokens, encodeTokens } from './tokens.ts';
export { gatewayKeyInForce, issueGatewayCredential } from './gateway-keys.ts';
