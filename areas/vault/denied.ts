import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { internalApiKey } from '#shared/auth/internal-key.ts';
import { sameSecret } from '#shared/runtime/middlewares/authenticate.ts';
import { logger } from '#shared/runtime/logger.ts';
import type { RequestState } from '#shared/runtime/request.ts';
import { header } from '#shared/runtime/request.ts';
import { countRefusal, recordAudit, REFUSAL_WINDOW_SECONDS } from './records.ts';

export type DenialReason =
  | 'missing-internal-key'
  | 'invalid-internal-key'
  | 'invalid-bearer-token'
  | 'not-system-admin';

/**
 * Why a vault request was refused (401/403). The key is compared again, in constant time, only
 * to tell a wrong key from a bearer failure on the admin routes; the given key is never kept.
 */
async function denialReason(event: APIGatewayProxyEventV2, status: number): Promise<DenialReason> {
  const given = header(event, 'x-internal-api-key');
  if (!given) return 'missing-internal-key';
  if (!sameSecret(given, await internalApiKey())) return 'invalid-internal-key';
  return status === 403 ? 'not-system-admin' : 'invalid-bearer-token';
}

const METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);
/** The caller's address as API Gateway saw it; anything that is not an address is `unknown`. */
const sourceOf = (event: APIGatewayProxyEventV2) => {
  const ip = event.requestContext?.http?.sourceIp ?? '';
  return /^[0-9A-Fa-f:.]{2,45}$/.test(ip) ? ip : 'unknown';
};

/** The refusals of a window that are audited: the 1st, 10th, 100th, 1000th… of a source. */
function isAuditedRefusal(count: number): boolean {
  let n = count;
  while (n >= 10 && n % 10 === 0) n /= 10;
  return n === 1;
}

/**
 * Records a refused request (401/403) without any header, body or path the caller chose. Refusals
 * are counted per source address and hour; the 1st, 10th, 100th… of a source's hour write one
 * audit entry each (entity: the source address) carrying the count so far, so a flood of refused
 * requests leaves a handful of entries, not one each. Never changes the response.
 */
export async function auditDenied(event: APIGatewayProxyEventV2, context: Context, status: number) {
  try {
    const source = sourceOf(event);
    const { count, windowStart } = await countRefusal(source);
    if (!isAuditedRefusal(count)) return;
    const state = (context as Context & { state?: RequestState }).state;
    const method = event.requestContext?.http?.method ?? '';
    await recordAudit({
      entityType: 'SecretAccess',
      entityId: source,
      action: 'access.denied',
      changes: {
        reason: await denialReason(event, status),
        status,
        route: state?.route?.id ?? null,
        method: METHODS.has(method) ? method : null,
        refusals: count,
        windowStart,
        windowSeconds: REFUSAL_WINDOW_SECONDS,
      },
      actor: null,
    });
  } catch (err) {
    logger.error('could not audit a refused vault request', { errorName: (err as Error).name });
  }
}
