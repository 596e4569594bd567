import { cooldownPut, oneTimePut, sixDigitCode, VERIFY_CODE_TTL_SECONDS } from '../../shared/auth/one-time.ts';
import { hashPassword } from '../../shared/auth/password.ts';
import { countIntegrationEvents, integrationEventPut } from '../../shared/identity/integration-events.ts';
import { createUser, type UserRecord } from '../../shared/identity/users.ts';
import { sendEmail } from '../../shared/queue/enqueue.ts';
import { verificationEmail } from './emails.ts';

export interface RegisterInput {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  phoneNumber?: string | null;
}

/**
 * A self-registered account: no tenant and no roles until an invitation or onboarding attaches it,
 * e-mail unverified. The user, its e-mail claim, the first verification code, the resend cooldown,
 * the audit entry and the `user.registered` integration event are one transaction.
 */
export async function register(input: RegisterInput) {
  const now = new Date();
  const user: UserRecord = {
    id: crypto.randomUUID(),
    email: input.email,
    firstName: input.firstName,
    lastName: input.lastName,
    phoneNumber: input.phoneNumber || null,
    roles: [],
    tenantId: null,
    isActive: true,
    isEmailVerified: false,
    avatarUrl: null,
    departmentId: null,
    passwordHash: await hashPassword(input.password),
    createdAt: now.toISOString(),
  };
  const code = sixDigitCode();
  const outcome = await createUser(user, null, [
    oneTimePut('VERIFY', user.id, code, VERIFY_CODE_TTL_SECONDS, now),
    cooldownPut(`verify:${user.email}`, now),
    integrationEventPut('user.registered', { userId: user.id, email: user.email, tenantId: null, source: 'password' }, user.createdAt),
  ]);
  if (!outcome.ok) throw new Error('Registration transaction failed');
  await countIntegrationEvents(1);
  await sendEmail(verificationEmail(user.email, user.firstName, code));
  return { id: user.id, email: user.email, isActive: user.isActive };
}
