import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { forbidden, notFound, validationError } from '../http/errors.ts';
import { keys } from '../data/keys.ts';
import { ddb } from '../platform/aws.ts';
import { config } from '../platform/config.ts';
import type { Principal } from './access-token.ts';

export const isSystemAdmin = (p: Principal | null) => !!p?.roles.includes('SystemAdmin');

/**
 * The tenant a request acts on. A tenant user always acts on its own tenant; naming another is
 * 403. A SystemAdmin names the tenant (checked to exist) and must name one where it is needed.
 */
export async function scopeTenant(principal: Principal, requested: string | null | undefined, field = 'query.tenantId'): Promise<string> {
  const wanted = requested?.toLowerCase();
  if (!isSystemAdmin(principal)) {
    if (!principal.tenantId) throw forbidden('This route needs a tenant account');
    if (wanted && wanted !== principal.tenantId) throw forbidden('Access to another tenant is not allowed');
    return principal.tenantId;
  }
  const tenantId = wanted ?? principal.tenantId;
  if (!tenantId) throw validationError([{ path: field, message: 'Required for platform administrators' }]);
  const tenant = await ddb().send(
    new GetCommand({ TableName: config.tableName, Key: keys.platformItem('TENANT', tenantId), ProjectionExpression: 'pk' }),
  );
  if (!tenant.Item) throw notFound('Tenant');
  return tenantId;
}
