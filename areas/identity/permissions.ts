import { permissionsForRoles } from './system-roles.ts';
import type { UserRecord } from './user-accounts.ts';

/**
 * The permissions carried in a user's access token, resolved at sign-in, provider sign-in and every
 * refresh (so role changes reach the token within one access-token lifetime): system roles grant
 * their fixed lists, custom tenant roles their stored lists (roles area, `permissionsForRoles`).
 */
export const permissionsFor = (user: Pick<UserRecord, 'roles' | 'tenantId'>): Promise<string[]> =>
  permissionsForRoles(user.tenantId, user.roles);
