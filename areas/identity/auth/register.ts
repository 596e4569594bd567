import { countAudit } from '#shared/data/audit.ts';
import { sendEmail } from '#shared/queue/email.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { countIntegrationEvents, integrationEventPut } from '#shared/data/integration-events.ts';
import { invalidInvitation } from '#areas/identity/errors.ts';
import { redeemInvitation } from '#areas/identity/invitations.ts';
import { cooldownPut, oneTimePut, sixDigitCode, VERIFY_CODE_TTL_SECONDS } from '#areas/identity/one-time.ts';
import { hashPassword } from '#areas/identity/password.ts';
import { createUser, type UserRecord } from '#areas/identity/user-accounts.ts';
import { verificationEmail } from './emails.ts';

export interface RegisterInput {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  phoneNumber?: string | null;
  invitationCode?: string | null;
}

/**
 * A new account, e-mail unverified. With an invitation code it joins the invitation's tenant with
 * its roles (taking a seat); without one it has no tenant and no roles. The user, its e-mail claim,
 * the redeemed invitation, the first verification code, the resend cooldown, the audit entries and
 * the integration events are one transaction.
 */
export async function register(input: RegisterInput) {
  const now = new Date();
  const id = crypto.randomUUID();
  const invitation = input.invitationCode ? await redeemInvitation(input.invitationCode, input.email, id, now) : null;
  if (input.invitationCode && !invitation) throw invalidInvitation();
  const user: UserRecord = {
    id,
    email: input.email,
    firstName: input.firstName,
    lastName: input.lastName,
    phoneNumber: input.phoneNumber || null,
    roles: invitation?.roles ?? [],
    tenantId: invitation?.tenantId ?? null,
    isActive: true,
    isEmailVerified: false,
    avatarUrl: null,
    departmentId: null,
    passwordHash: await hashPassword(input.password),
    createdAt: now.toISOString(),
  };
  const code = sixDigitCode();
  const own = [
    oneTimePut('VERIFY', user.id, code, VERIFY_CODE_TTL_SECONDS, now),
    cooldownPut(`verify:${user.email}`, now),
    integrationEventPut(
      'user.registered',
      { userId: user.id, email: user.email, tenantId: user.tenantId, source: 'password' },
      user.createdAt,
    ),
  ];
  // A taken e-mail is 400 DUPLICATE_EMAIL; the invitation's own items answer for a used or expired
  // invitation (400 INVALID_INVITATION) and a full tenant (409 SEAT_LIMIT_REACHED).
  await createUser(user, null, [...own, ...(invitation?.writes ?? [])]);
  await Promise.all([
    countIntegrationEvents(1 + (invitation?.integrationEvents ?? 0)),
    invitation ? countAudit(invitation.auditEntries) : undefined,
  ]);
  countMetric('Registration', 'password');
  await sendEmail(verificationEmail(user.email, code));
  return { id: user.id, email: user.email, isActive: user.isActive };
}
