import { countAudit } from '#shared/data/audit.ts';
import { getItem } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { transact } from '#shared/data/transact.ts';
import { badRequest, serviceUnavailable } from '#shared/http/errors.ts';
import { countIntegrationEvents } from '#areas/identity/integration-events.ts';
import { newInvitation, sendInvitationEmail } from '#areas/identity/invitations.ts';
import {
  actingAs,
  newTenantItems,
  planDefaults,
  SLUG_CLAIM_INDEX,
  slugCandidates,
  slugify,
  TENANT_STATUS_CODES,
  type TenantRecord,
} from '#areas/identity/tenants.ts';
import { normalizeEmail } from '#areas/identity/users.ts';

export interface OnboardingInput {
  tenantName: string;
  email: string;
  firstName: string;
  lastName: string;
}

/**
 * A Pending Starter tenant on its trial, its system roles and a TenantOwner invitation for the
 * e-mail, in one transaction; a taken slug moves on to the next candidate. The code is e-mailed.
 */
export async function startOnboarding(input: OnboardingInput): Promise<{ invitationCode: string }> {
  const email = normalizeEmail(input.email);
  // The owner registers with this e-mail; one already in use could never redeem the invitation.
  if (await getItem(keys.unique('EMAIL', email)))
    throw badRequest('DUPLICATE_EMAIL', 'An account with this e-mail already exists');

  const now = new Date();
  const plan = planDefaults(1);
  const actor = actingAs(null, email);
  const base: Omit<TenantRecord, 'slug'> = {
    id: crypto.randomUUID(),
    name: input.tenantName,
    email,
    phone: null,
    planType: 1,
    status: TENANT_STATUS_CODES.PENDING,
    trialExpiresAt: new Date(now.getTime() + plan.trialDays * 24 * 3600 * 1000).toISOString(),
    maxAgents: plan.maxAgents,
    maxKnowledgeBases: plan.maxKnowledgeBases,
    maxSeats: plan.maxSeats,
    seatCount: 0,
    createdAt: now.toISOString(),
  };
  for (const slug of slugCandidates(slugify(input.tenantName))) {
    const tenant: TenantRecord = { ...base, slug };
    const invitation = newInvitation({
      tenantId: tenant.id,
      email,
      roles: ['TenantOwner'],
      firstName: input.firstName,
      lastName: input.lastName,
      actor,
      now,
    });
    const outcome = await transact([...newTenantItems(tenant, actor, 'onboarding'), ...invitation.items]);
    if (!outcome.ok) {
      if (outcome.failedAt.includes(SLUG_CLAIM_INDEX)) continue;
      throw new Error(`Onboarding write failed at ${outcome.failedAt.join(',')}`);
    }
    await Promise.all([
      countAudit(1 + invitation.auditEntries),
      countIntegrationEvents(1 + invitation.integrationEvents),
    ]);
    await sendInvitationEmail(invitation.record, invitation.code, tenant);
    return { invitationCode: invitation.code };
  }
  throw serviceUnavailable();
}
