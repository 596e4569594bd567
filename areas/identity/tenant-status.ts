import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/data/keys.ts';
import { forbidden } from '#shared/http/errors.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';

/**
 * The numeric `status` of a tenant item (`keys.platformItem('TENANT', id)`). Only Active tenants'
 * users may sign in or refresh; the tenants area writes these values.
 */
export const TENANT_STATUS = { Pending: 0, Active: 1, Suspended: 2, Cancelled: 3 } as const;

export type TenantSignInRefusal = 'TENANT_PENDING' | 'TENANT_SUSPENDED' | 'TENANT_CANCELLED' | 'TENANT_INACTIVE';

const MESSAGES: Record<TenantSignInRefusal, string> = {
  TENANT_PENDING: 'Your organisation is not activated yet',
  TENANT_SUSPENDED: 'Your organisation is suspended',
  TENANT_CANCELLED: 'Your organisation has been cancelled',
  TENANT_INACTIVE: 'Your organisation is not active',
};

/** Why a tenant's users may not sign in, or null when they may. A missing tenant is inactive. */
export function tenantRefusal(tenant: { status?: unknown } | undefined): TenantSignInRefusal | null {
  switch (tenant?.status) {
    case TENANT_STATUS.Active:
      return null;
    case TENANT_STATUS.Pending:
      return 'TENANT_PENDING';
    case TENANT_STATUS.Suspended:
      return 'TENANT_SUSPENDED';
    case TENANT_STATUS.Cancelled:
      return 'TENANT_CANCELLED';
    default:
      return 'TENANT_INACTIVE';
  }
}

export async function tenantSignInRefusal(tenantId: string | null): Promise<TenantSignInRefusal | null> {
  if (!tenantId) return null;
  const out = await ddb().send(
    new GetCommand({
      TableName: config.tableName,
      Key: keys.platformItem('TENANT', tenantId),
      ProjectionExpression: '#s',
      ExpressionAttributeNames: { '#s': 'status' },
    }),
  );
  return tenantRefusal(out.Item);
}

export const tenantRefusalError = (code: TenantSignInRefusal) => forbidden(MESSAGES[code], code);
