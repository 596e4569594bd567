import { ApiError, validationError } from '#shared/http/errors.ts';
import { admit, finish, type Later } from './admission.ts';
import { upstreamError } from './errors.ts';
import { GATEWAY_LIMITS as L } from './limits.ts';
import { providerFor } from './providers/index.ts';
import { isRetryable } from './providers/port.ts';
import { countTokens } from './tokens.ts';
import type { Caller } from './records.ts';

/**
 * The gateway's rerank entry point: a query and candidate documents in, the best `topN` back by
 * their index, best first. Admitted, reserved and metered like an embedding call (what the reranker
 * reads, the query beside each document, counts as the call's input tokens against the allowance
 * and the key's budget), tried on the model and its fallbacks, settled and recorded once.
 * Knowledge reranks its candidates through it.
 */
export interface RerankCall {
  tenantId: string;
  caller: Caller;
  requestId: string;
  /** Catalog model name or id; null takes the catalog's default rerank model. */
  model: string | null;
  query: string;
  documents: string[];
  topN: number;
  later?: Later;
}

export interface RerankResult {
  model: string;
  ranked: { index: number; score: number }[];
  usage: { promptTokens: number; totalTokens: number };
}

/** What a cross-encoder reads for one rerank call: the query beside every document. */
export async function rerankTokens(query: string, documents: string[]): Promise<number> {
  let tokens = (await countTokens(query)) * documents.length;
  for (const doc of documents) tokens += await countTokens(doc);
  return tokens;
}

function checked(call: RerankCall) {
  const problems = [
    call.documents.length > L.rerankDocuments && `At most ${L.rerankDocuments} documents`,
    call.documents.some((d) => d.length > L.rerankDocumentChars) &&
      `At most ${L.rerankDocumentChars} characters a document`,
    call.query.length > L.rerankDocumentChars && `At most ${L.rerankDocumentChars} characters of query`,
    !(Number.isInteger(call.topN) && call.topN >= 1) && 'topN is a whole number of at least 1',
  ].filter((p): p is string => Boolean(p));
  if (problems.length) throw validationError(problems.map((message) => ({ path: 'rerank', message })));
}

export async function rerank(call: RerankCall): Promise<RerankResult> {
  checked(call);
  if (!call.documents.length)
    return { model: call.model ?? '', ranked: [], usage: { promptTokens: 0, totalTokens: 0 } };
  const tokens = await rerankTokens(call.query, call.documents);
  const a = await admit({ ...call, kind: 'rerank', promptTokens: tokens, maxOutput: 0 });
  const topN = Math.min(call.topN, call.documents.length);
  let lastError: unknown;
  for (const model of a.chain) {
    try {
      const out = await (await providerFor(model)).rerank(model, call.query, call.documents, topN);
      // A provider that reports no count (Bedrock, the local stand-in) is metered on what it was sent.
      const promptTokens = out.promptTokens || tokens;
      await finish(a, { model, promptTokens, completionTokens: 0 }, call.later);
      const ranked = out.ranked.filter(
        (r) => Number.isInteger(r.index) && r.index >= 0 && r.index < call.documents.length,
      );
      return { model: model.name, ranked: ranked.slice(0, topN), usage: { promptTokens, totalTokens: promptTokens } };
    } catch (err) {
      lastError = err;
      if (!isRetryable(err)) break;
    }
  }
  await finish(a, { model: null, promptTokens: 0, completionTokens: 0 }, call.later);
  if (lastError instanceof ApiError) throw lastError;
  throw upstreamError();
}
