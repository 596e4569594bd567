import { hashingEmbedding } from './providers/hashing-embedder.ts';
import { countTokens } from './tokens.ts';

/**
 * The gateway's embedding entry point (docs/ai-runtime.md, "Contracts"). This first version serves
 * the local model only and neither reserves nor records; the gateway issue replaces the body with
 * the catalog lookup, the allowance reservation, the provider port and the analytics record, keeping
 * this signature, so knowledge can build against it now.
 */
export type Caller =
  | { kind: 'key'; keyId: string }
  | { kind: 'user'; userId: string }
  | { kind: 'agent'; agentId: string };

export interface EmbedCall {
  tenantId: string;
  caller: Caller;
  requestId: string;
  /** Catalog model name or id; null takes the catalog's default embedding model. */
  model: string | null;
  input: string[];
}

export interface EmbedResult {
  model: string;
  vectors: number[][];
  usage: { promptTokens: number; totalTokens: number };
}

export async function embed(call: EmbedCall): Promise<EmbedResult> {
  let tokens = 0;
  for (const text of call.input) tokens += await countTokens(text);
  return {
    model: 'local-embed',
    vectors: call.input.map(hashingEmbedding),
    usage: { promptTokens: tokens, totalTokens: tokens },
  };
}
