import { auditPut, countAudit } from '#shared/data/audit.ts';
import { commitChange } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { conflict, serviceUnavailable } from '#shared/http/errors.ts';
import { countIntegrationEvents } from '#shared/data/integration-events.ts';
import { newInvitation, sendInvitationEmail } from '#areas/identity/invitations.ts';
import { identityKeys, normalizeEmail, type TenantRecord } from '#areas/identity/records.ts';
import { actingAs, newTenant, planDefaults, slugCandidates, slugify } from '#areas/identity/tenant-model.ts';
import { duplicateEmail } from '#areas/identity/errors.ts';
import { TENANT_STATUS_CODES } from '#areas/identity/vocabulary.ts';
import { committedUnless } from '#shared/data/write-one.ts';

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
  if (await get(identityKeys.email(email), { attributes: ['pk'] })) throw duplicateEmail();

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
    maxTokensPerMonth: plan.maxTokensPerMonth,
    seatCount: 0,
    createdAt: now.toISOString(),
  };
  for (const slug of slugCandidates(slugify(input.tenantName))) {
    const tenant: TenantRecord = { ...base, slug };
    // Another tenant holds this slug: the next candidate is tried.
    const slugTaken = conflict(`The slug '${slug}' is already taken`);
    const created = newTenant(tenant, actor, 'onboarding', slugTaken);
    const invitation = newInvitation({
      tenantId: tenant.id,
      email,
      roles: ['TenantOwner'],
      firstName: input.firstName,
      lastName: input.lastName,
      actor,
      now,
    });
    const taken = await committedUnless(
      commitChange(
        [...created.writes, ...invitation.writes, auditPut(invitation.change, tenant.createdAt)],
        created.change,
        { now: tenant.createdAt },
      ),
      slugTaken,
    );
    if (taken) continue;
    await Promise.all([
      countAudit(1), // the invitation's entry; the tenant's is counted by the commit
      countIntegrationEvents(created.integrationEvents + invitation.integrationEvents),
    ]);
    await sendInvitationEmail(invitation.record, invitation.code, tenant);
    return { invitationCode: invitation.code };
  }
  throw serviceUnavailable();
}
