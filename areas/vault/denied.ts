import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { internalApiKey } from '#shared/auth/internal-key.ts';
import { sameSecret } from '#shared/runtime/middlewares/authenticate.ts';
import { logger } from '#shared/runtime/logger.ts';
import type { RequestState } from '#shared/runtime/request.ts';
import { header } from '#shared/runtime/request.ts';
import { recordAudit } from './records.ts';

export type DenialReason =
  | 'missing-internal-key'
  | 'invalid-internal-key'
  | 'invalid-bearer-token'
  | 'not-system-admin';

/**
 * Why a vault request was refused (401/403). The key is compared again, in constant time, only
 * to tell a wrong key from a bearer failure on the admin routes; the given key is never kept.
 */
export async function denialReason(event: APIGatewayProxyEventV2, status: number): Promise<DenialReason> {
  const given = header(event, 'x-internal-api-key');
  if (!given) return 'missing-internal-key';
  if (!sameSecret(given, await internalApiKey())) return 'invalid-internal-key';
  return status === 403 ? 'not-system-admin' : 'invalid-bearer-token';
}

/** Audits a refused request without any header or body value. Never changes the response. */
export async function auditDenied(event: APIGatewayProxyEventV2, context: Context, status: number) {
  try {
    const state = (context as Context & { state?: RequestState }).state;
    const reason = await denialReason(event, status);
    await recordAudit({
      entityType: 'Secret',
      entityId: (event.rawPath ?? '').slice(0, 300),
      action: 'access.denied',
      changes: {
        reason,
        status,
        route: state?.route?.id ?? null,
        method: event.requestContext?.http?.method ?? null,
        sourceIp: event.requestContext?.http?.sourceIp ?? null,
      },
      actor: null,
    });
  } catch (err) {
    logger.error('could not audit a refused vault request', { errorName: (err as Error).name });
  }
}
