import { issueAccessToken, type TokenSubject } from '#shared/auth/access-token.ts';
import { SYSTEM_ROLE_PERMISSIONS } from '#shared/auth/permissions.ts';

/** Access tokens minted with the production signing code (until sign-in exists, tests use these). */
export async function tokenFor(
  subject: Partial<TokenSubject> & { role?: 'SystemAdmin' | 'TenantOwner' | 'TenantMember' },
) {
  const role = subject.role ?? 'TenantOwner';
  const { accessToken } = await issueAccessToken({
    userId: subject.userId ?? crypto.randomUUID(),
    tenantId: role === 'SystemAdmin' ? (subject.tenantId ?? null) : (subject.tenantId ?? crypto.randomUUID()),
    roles: subject.roles ?? [role],
    permissions: subject.permissions ?? [...SYSTEM_ROLE_PERMISSIONS[role]],
    email: subject.email ?? `${role.toLowerCase()}@example.com`,
  });
  return accessToken;
}
