import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { conflict } from '#shared/http/errors.ts';
import { countIntegrationEvents } from '#shared/data/integration-events.ts';
import { seatLimitReached } from '#areas/identity/errors.ts';
import { assignableRoles, newInvitation, sendInvitationEmail } from '#areas/identity/invitations.ts';
import { identityKeys, normalizeEmail } from '#areas/identity/records.ts';
import { acceptsMembers, statusNameOf } from '#areas/identity/tenant-status.ts';
import { getTenantOr404 } from '#areas/identity/tenant-model.ts';

/**
 * Invites an e-mail into the tenant with roles that exist in it. Seats are checked here (a full
 * tenant invites nobody) and again, race-free, when the invitation is redeemed.
 */
export async function inviteToTenant(
  principal: Principal,
  tenantId: string,
  input: { email: string; roles: string[] },
) {
  const tenant = await getTenantOr404(tenantId, true);
  if (!acceptsMembers(tenant)) throw conflict(`The tenant is ${statusNameOf(tenant.status)} and takes no new members`);
  const roles = await assignableRoles(tenant.id, input.roles, principal);
  const email = normalizeEmail(input.email);
  if (await get(identityKeys.email(email), { attributes: ['pk'] }))
    throw conflict('An account with this e-mail already exists');
  if (tenant.seatCount >= tenant.maxSeats) throw seatLimitReached();

  const invitation = newInvitation({ tenantId: tenant.id, email, roles, actor: principal });
  await commitChange(invitation.writes, invitation.change);
  await countIntegrationEvents(invitation.integrationEvents);
  await sendInvitationEmail(invitation.record, invitation.code, tenant);
  return { invitationCode: invitation.code, expiresAt: invitation.record.expiresAt };
}
