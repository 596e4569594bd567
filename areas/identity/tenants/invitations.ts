import type { Principal } from '#shared/auth/access-token.ts';
import { countAudit } from '#shared/data/audit.ts';
import { getItem } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { transact } from '#shared/data/transact.ts';
import { conflict } from '#shared/http/errors.ts';
import { countIntegrationEvents } from '#areas/identity/integration-events.ts';
import {
  acceptsMembers,
  assignableRoles,
  newInvitation,
  seatLimitReached,
  sendInvitationEmail,
} from '#areas/identity/invitations.ts';
import { statusNameOf } from '#areas/identity/tenants.ts';
import { normalizeEmail } from '#areas/identity/users.ts';
import { tenantForCaller } from './tenants.ts';

/**
 * Invites an e-mail into the tenant with roles that exist in it. Seats are checked here (a full
 * tenant invites nobody) and again, race-free, when the invitation is redeemed.
 */
export async function inviteToTenant(principal: Principal, slug: string, input: { email: string; roles: string[] }) {
  const tenant = await tenantForCaller(principal, slug, true);
  if (!acceptsMembers(tenant)) throw conflict(`The tenant is ${statusNameOf(tenant.status)} and takes no new members`);
  const roles = await assignableRoles(tenant.id, input.roles, principal);
  const email = normalizeEmail(input.email);
  if (await getItem(keys.unique('EMAIL', email))) throw conflict('An account with this e-mail already exists');
  if (tenant.seatCount >= tenant.maxSeats) throw seatLimitReached();

  const invitation = newInvitation({ tenantId: tenant.id, email, roles, actor: principal });
  const outcome = await transact(invitation.items);
  if (!outcome.ok) throw new Error(`Invitation write failed at ${outcome.failedAt.join(',')}`);
  await Promise.all([countAudit(invitation.auditEntries), countIntegrationEvents(invitation.integrationEvents)]);
  await sendInvitationEmail(invitation.record, invitation.code, tenant);
  return { invitationCode: invitation.code, expiresAt: invitation.record.expiresAt };
}
