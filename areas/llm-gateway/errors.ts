import { defineError } from '#shared/http/errors.ts';

/** What each kind of model answers, for the refusal of a model asked for the other kind's call. */
const KIND_CALL = { chat: 'chat completions', embedding: 'embeddings', rerank: 'rerank calls' } as const;
const KIND_NAME = { chat: 'a chat', embedding: 'an embedding', rerank: 'a rerank' } as const;

// The refusals of a model call, in the spec's order (an unknown key is the runtime's INVALID_API_KEY).
// A model the caller may use but of the other kind is named as such (OpenAI also answers it 404):
// "does not exist" would send its user looking for a typo.
export const modelNotFound = defineError(
  404,
  'MODEL_NOT_FOUND',
  (name: string, kind?: keyof typeof KIND_CALL) =>
    kind
      ? `The model '${name}' is ${KIND_NAME[kind]} model: it answers ${KIND_CALL[kind]} only`
      : `The model '${name}' does not exist or you do not have access to it`,
  { example: ['local-chat'] },
);
export const keyRevoked = defineError(401, 'KEY_REVOKED', 'This API key has been revoked');
export const keyExpired = defineError(401, 'KEY_EXPIRED', 'This API key has expired');
// The caller may be a key rather than a member: "this organisation", where sign-in says "your".
export const tenantSuspended = defineError(403, 'TENANT_SUSPENDED', 'This organisation is suspended');
export const tenantCancelled = defineError(403, 'TENANT_CANCELLED', 'This organisation has been cancelled');
export const budgetExceeded = defineError(429, 'BUDGET_EXCEEDED', "This key's budget is used up (maxBudgetUsd)");
export const tokenLimitReached = defineError(
  429,
  'TOKEN_LIMIT_REACHED',
  "The month's token allowance of this tenant is used up",
);
/** Every provider of the chain failed: retryable (the reservation was released). */
export const upstreamError = defineError(503, 'UPSTREAM_ERROR', 'The model provider failed; try again', {
  retryAfterSeconds: 1,
});

/**
 * The model cannot answer in the shape the request asks (`param` names the request's field:
 * `response_format` on chat completions, `text.format` on the Responses API): refused, never
 * answered in plain text instead.
 */
export const unsupportedResponseFormat = defineError(
  400,
  'UNSUPPORTED_RESPONSE_FORMAT',
  (_param: string, _why: string) => 'This response format cannot be honoured',
  {
    details: (param, why) => [{ path: `body.${param}`, message: why }],
    example: ['response_format', 'local-chat: pattern ^[0-9]{3}$ cannot be followed'],
  },
);
/**
 * A strict shape's answer that does not conform to its schema (or JSON mode's answer that is not a
 * JSON object): the call is billed (the model produced it) and refused rather than passed on.
 */
export const modelOutputInvalid = defineError(
  502,
  'MODEL_OUTPUT_INVALID',
  (why: string) => `The model's answer does not conform to the requested response format: ${why}`,
  { example: ['/name must be string'] },
);

/**
 * What a model call the platform makes for a tenant (an agent's turn, a retrieval's embedding) can
 * answer: the refusals that do not depend on a gateway key.
 */
export const MODEL_CALL_REFUSALS = [
  modelNotFound,
  tenantSuspended,
  tenantCancelled,
  tokenLimitReached,
  upstreamError,
] as const;
