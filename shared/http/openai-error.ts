import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { ApiError } from './errors.ts';
import { JSON_HEADERS } from './responses.ts';

/**
 * An error in OpenAI's wire format, `{"error":{"message","type","code","param"}}` (the LLM gateway's `/v1`
 * routes, so any OpenAI client reads it). The platform's codes map to OpenAI's where OpenAI has one
 * (TOKEN_LIMIT_REACHED is `insufficient_quota`); others are the platform code in lower case.
 */
const CODES: Record<string, string> = {
  UNAUTHORIZED: 'invalid_api_key',
  INVALID_API_KEY: 'invalid_api_key',
  KEY_REVOKED: 'invalid_api_key',
  KEY_EXPIRED: 'invalid_api_key',
  RATE_LIMITED: 'rate_limit_exceeded',
  TOKEN_LIMIT_REACHED: 'insufficient_quota',
  VALIDATION_ERROR: 'invalid_request_error',
  INVALID_JSON: 'invalid_request_error',
};

function typeOf(status: number, code: string): string {
  if (code === 'insufficient_quota') return 'insufficient_quota';
  if (status === 401) return 'invalid_request_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return code === 'budget_exceeded' ? 'insufficient_quota' : 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** OpenAI's `code` and `type` for a platform error (what the document lists for the `/v1` routes). */
export function openAiCodeOf(status: number, platformCode: string): { code: string; type: string } {
  const code = CODES[platformCode] ?? platformCode.toLowerCase();
  return { code, type: typeOf(status, code) };
}

export function openAiError(err: ApiError): { message: string; type: string; code: string; param: string | null } {
  const { code, type } = openAiCodeOf(err.status, err.code);
  const first = Array.isArray(err.details)
    ? (err.details[0] as { path?: string; message?: string } | undefined)
    : undefined;
  const message = first?.path ? `${err.message}: ${first.path}: ${first.message}` : err.message;
  return { message, type, code, param: first?.path?.replace(/^body\./, '') ?? null };
}

/**
 * OpenAI's SDKs retry 408, 409, 429 and 5xx unless the answer says `x-should-retry: false`: a spent
 * budget or allowance retried twice with backoff only makes a call take seconds to fail, and eats
 * into the key's rpm. Only a rate limit, a conflict and a server-side failure may pass on retry.
 */
const retryable = (err: ApiError) => err.status >= 500 || err.status === 409 || err.code === 'RATE_LIMITED';

/** The answer's headers: `x-request-id` on every `/v1` answer, as OpenAI sends, so a caller can quote it. */
export function openAiErrorToHttp(err: ApiError, requestId?: string): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: err.status,
    headers: {
      ...JSON_HEADERS,
      ...err.headers,
      ...(retryable(err) ? {} : { 'x-should-retry': 'false' }),
      ...(requestId ? { 'x-request-id': requestId } : {}),
    },
    body: JSON.stringify({ error: openAiError(err) }),
  };
}
