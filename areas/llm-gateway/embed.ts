import { admit, finish, type Later } from './admission.ts';
import { upstreamError } from './errors.ts';
import { providerFor } from './providers/index.ts';
import { isRetryable } from './providers/port.ts';
import type { Caller } from './records.ts';
import { countTokens } from './tokens.ts';
import { ApiError } from '#shared/http/errors.ts';

export type { Caller } from './records.ts';

/**
 * The gateway's embedding entry point (docs/architecture.md, "LLM gateway"): admitted and reserved like
 * chat (the input's tokens against the allowance and the key's budget), tried on the model and its
 * fallbacks, settled, recorded once. Knowledge embeds documents and queries through it.
 */
export interface EmbedCall {
  tenantId: string;
  caller: Caller;
  requestId: string;
  /** Catalog model name or id; null takes the catalog's default embedding model. */
  model: string | null;
  input: string[];
  /** As ChatCall's: the settle and record finish after the caller's answer. */
  later?: Later;
}

export interface EmbedResult {
  model: string;
  vectors: number[][];
  usage: { promptTokens: number; totalTokens: number };
}

export async function embed(call: EmbedCall): Promise<EmbedResult> {
  let tokens = 0;
  for (const text of call.input) tokens += await countTokens(text);
  const a = await admit({ ...call, kind: 'embedding', promptTokens: tokens, maxOutput: 0 });
  let lastError: unknown;
  for (const model of a.chain) {
    try {
      const out = await (await providerFor(model)).embed(model, call.input);
      await finish(a, { model, promptTokens: out.promptTokens, completionTokens: 0 }, call.later);
      return {
        model: model.name,
        vectors: out.vectors,
        usage: { promptTokens: out.promptTokens, totalTokens: out.promptTokens },
      };
    } catch (err) {
      lastError = err;
      if (!isRetryable(err)) break;
    }
  }
  await finish(a, { model: null, promptTokens: 0, completionTokens: 0 }, call.later);
  if (lastError instanceof ApiError) throw lastError;
  throw upstreamError();
}
