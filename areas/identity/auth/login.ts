import { updateItem } from '#shared/data/commit.ts';
import { invalidCredentials } from '#areas/identity/errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { dummyHash, hashPassword, needsRehash, verifyPassword } from '#areas/identity/password.ts';
import { identityKeys } from '#areas/identity/records.ts';
import { findUserByEmail } from '#areas/identity/user-accounts.ts';
import { writeOne } from '#shared/data/write-one.ts';
import { claimSignInAttempt, issueDeviceToken } from './account-throttle.ts';
import { recordAuth } from './audit.ts';
import { completeSignIn, type Account } from './session.ts';

/**
 * Password sign-in. An unknown address, an account without a password and a wrong password all
 * cost one scrypt verification, count against the account's throttle and give the same 401. A
 * successful sign-in also returns a `deviceToken` that lets this client past the throttle later.
 */
export async function login(
  input: { email: string; password: string; rememberMe?: boolean; deviceToken?: string | null },
  ip: string,
) {
  const release = await claimSignInAttempt(input.email, input.deviceToken ?? undefined);
  const dummy = dummyHash();
  const user: Account | undefined = await findUserByEmail(input.email);
  const stored = user?.passwordHash ?? (await dummy);
  const valid = await verifyPassword(input.password, stored);
  if (!user?.passwordHash || !valid) {
    await recordAuth({
      action: 'login.failed',
      user: user ?? null,
      email: input.email,
      details: { method: 'password', ip, reason: invalidCredentials.code },
    });
    countMetric('SignInRefused', invalidCredentials.code);
    throw invalidCredentials();
  }
  // The right password: the guess it spent is given back.
  await release();
  if (needsRehash(user.passwordHash)) await rehash(user, input.password);
  const result = await completeSignIn(user, { method: 'password', ip, rememberMe: input.rememberMe ?? false });
  return result.accessToken ? { ...result, deviceToken: await issueDeviceToken(user.email) } : result;
}

/**
 * Upgrades a hash made with weaker parameters, only if the password did not change meanwhile (then
 * the newer hash stays). Best effort: the sign-in succeeds either way.
 */
async function rehash(user: Account, password: string) {
  try {
    const upgraded = await writeOne(
      updateItem(
        identityKeys.user(user.tenantId, user.id),
        { passwordHash: await hashPassword(password) },
        { condition: 'passwordHash = :old', values: { ':old': user.passwordHash } },
      ),
    );
    if (!upgraded.written) logger.info('password rehash skipped: the password changed meanwhile');
  } catch (err) {
    logger.warn('password rehash skipped', { error: err as Error });
  }
}
