import { queryItems } from '#shared/data/query.ts';
import { config } from '#shared/platform/config.ts';
import { identityKeys, type UserRecord } from '#areas/identity/records.ts';
import { permissionsForRoles } from '#areas/identity/system-roles.ts';

/** A tenant's users read for a notice: beyond this many, the newest are asked (bounded work per notice). */
const MAX_USERS_READ = 1000;

/**
 * The e-mail addresses of the tenant's active users whose roles grant `permission` (system roles
 * and custom roles alike), at most `max`. Each distinct set of roles is resolved once.
 */
export async function emailsOfUsersWith(tenantId: string, permission: string, max = 50): Promise<string[]> {
  const users = await queryItems<Pick<UserRecord, 'email' | 'roles' | 'isActive'>>(
    {
      TableName: config.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': identityKeys.users(tenantId) },
      ExpressionAttributeNames: { '#roles': 'roles', '#email': 'email', '#active': 'isActive' },
      ProjectionExpression: '#roles, #email, #active',
      ScanIndexForward: false,
    },
    MAX_USERS_READ,
  );
  const grants = new Map<string, Promise<boolean>>();
  const holds = (roles: string[]) => {
    const key = [...roles].sort().join('\n');
    if (!grants.has(key))
      grants.set(
        key,
        permissionsForRoles(tenantId, roles).then((p) => p.includes(permission)),
      );
    return grants.get(key)!;
  };
  const found: string[] = [];
  for (const u of users) {
    if (u.isActive === false || !u.email || !(await holds(u.roles ?? []))) continue;
    if (!found.includes(u.email)) found.push(u.email);
    if (found.length >= max) break;
  }
  return found;
}
