import type { Principal } from '#shared/auth/access-token.ts';
import { isSystemAdmin } from '#shared/auth/tenant-scope.ts';
import { forbidden } from '#shared/http/errors.ts';
import { permissionsForRoles, type RoleRecord } from './system-roles.ts';

/**
 * The permission ceiling: a caller who is neither TenantOwner nor SystemAdmin may grant a role only
 * when it holds every permission of that role, and may manage (update, reset, deactivate, delete)
 * a user only when that user's permissions are a subset of its own. The caller's permissions are
 * those of its access token (short-lived, so a demotion takes effect at the next refresh).
 */
const actsAsOwner = (principal: Principal) => isSystemAdmin(principal) || principal.roles.includes('TenantOwner');

const notHeldBy = (principal: Principal, permissions: readonly string[]) =>
  permissions.filter((p) => !principal.permissions.includes(p));

/** Refuses (403) granting any of `roles` that carries a permission the caller does not hold. */
export function assertMayGrant(principal: Principal, roles: readonly Pick<RoleRecord, 'name' | 'permissions'>[]): void {
  if (roles.some((r) => r.name === 'TenantOwner') && !actsAsOwner(principal))
    throw forbidden('Only a TenantOwner can grant TenantOwner');
  if (actsAsOwner(principal)) return;
  const above = roles.filter((r) => notHeldBy(principal, r.permissions).length);
  if (above.length) {
    const missing = [...new Set(above.flatMap((r) => notHeldBy(principal, r.permissions)))];
    throw forbidden(
      `You cannot grant ${above.map((r) => r.name).join(', ')}: ` +
        `it carries permissions you do not hold (${missing.join(', ')})`,
    );
  }
}

/** Refuses (403) managing a user who is a TenantOwner or holds a permission the caller does not. */
export async function assertMayManageUser(
  principal: Principal,
  tenantId: string,
  target: { roles: readonly string[] },
): Promise<void> {
  if (actsAsOwner(principal)) return;
  if (target.roles.includes('TenantOwner')) throw forbidden('Only a TenantOwner can manage a TenantOwner');
  const missing = notHeldBy(principal, await permissionsForRoles(tenantId, [...target.roles]));
  if (missing.length)
    throw forbidden(`You cannot manage a user with permissions you do not hold (${missing.join(', ')})`);
}
