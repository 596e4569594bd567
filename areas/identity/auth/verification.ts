import { commitChange, orConflict, updateItem } from '#shared/data/commit.ts';
import { rateLimited } from '#shared/http/errors.ts';
import { codeExpired, invalidCode, tooManyAttempts } from '#areas/identity/errors.ts';
import { sendEmail } from '#shared/queue/email.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { activatePendingTenantOnOwnerVerified } from '#areas/identity/invitations.ts';
import {
  checkOneTime,
  claimCooldown,
  consumeOneTime,
  sixDigitCode,
  storeOneTime,
  VERIFY_CODE_TTL_SECONDS,
} from '#areas/identity/one-time.ts';
import { identityKeys } from '#areas/identity/records.ts';
import { findUserByEmail } from '#areas/identity/user-accounts.ts';
import { authChange } from './audit.ts';
import { verificationEmail } from './emails.ts';

/** 400 INVALID_CODE (wrong, unknown address, nothing pending), CODE_EXPIRED or TOO_MANY_ATTEMPTS. */
export async function verifyEmail(input: { email: string; code: string }, ip: string) {
  const user = await findUserByEmail(input.email);
  if (!user || user.isEmailVerified) throw invalidCode();
  const check = await checkOneTime('VERIFY', user.id, input.code, ip);
  if (!check.ok) {
    if (check.reason === 'expired') throw codeExpired();
    if (check.reason === 'locked') throw tooManyAttempts();
    throw invalidCode();
  }
  // A code spent by a concurrent check, or an account gone meanwhile, verifies nothing.
  const spent = invalidCode();
  await commitChange(
    [
      orConflict(consumeOneTime('VERIFY', user.id, check.secretHash), spent),
      orConflict(
        updateItem(
          identityKeys.user(user.tenantId, user.id),
          { isEmailVerified: true, emailVerifiedAt: new Date().toISOString() },
          { condition: 'attribute_exists(pk)' },
        ),
        spent,
      ),
    ],
    authChange({ action: 'email.verified', user, details: {} }),
  );
  // The owner of an onboarded tenant verifying its address is what activates the tenant.
  await activatePendingTenantOnOwnerVerified({ ...user, isEmailVerified: true });
  return null;
}

/**
 * Once per 60 s per address, whether or not an account exists (so the 429 reveals nothing). A new
 * code replaces the pending one; nothing is sent for unknown, verified or disabled accounts.
 */
export async function resendVerification(input: { email: string }) {
  const cooldown = await claimCooldown(`verify:${input.email}`);
  if (!cooldown.allowed) {
    countMetric('RateLimitRefused', 'verify-resend-cooldown');
    throw rateLimited(cooldown.retryAfterSeconds);
  }
  const user = await findUserByEmail(input.email);
  if (!user || user.isEmailVerified || !user.isActive) return null;
  const code = sixDigitCode();
  await storeOneTime('VERIFY', user.id, code, VERIFY_CODE_TTL_SECONDS);
  await sendEmail(verificationEmail(user.email, code));
  return null;
}
