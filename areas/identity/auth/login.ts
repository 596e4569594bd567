import { dummyHash, hashPassword, needsRehash, verifyPassword } from '#areas/identity/password.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/data/keys.ts';
import { unauthorized } from '#shared/http/errors.ts';
import { findUserByEmail } from '#areas/identity/users.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { logger } from '#shared/runtime/logger.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { claimSignInAttempt, issueDeviceToken } from './account-throttle.ts';
import { recordAuth } from './audit.ts';
import { completeSignIn, type Account } from './session.ts';

export const invalidCredentials = () => unauthorized('Invalid e-mail or password', 'INVALID_CREDENTIALS');

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
  const user = (await findUserByEmail(input.email)) as Account | undefined;
  const stored = user?.passwordHash ?? (await dummy);
  const valid = await verifyPassword(input.password, stored);
  if (!user || !user.passwordHash || !valid) {
    await recordAuth({
      action: 'login.failed',
      user: user ?? null,
      email: input.email,
      details: { method: 'password', ip, reason: 'INVALID_CREDENTIALS' },
    });
    countMetric('SignInRefused', 'INVALID_CREDENTIALS');
    throw invalidCredentials();
  }
  // The right password: the guess it spent is given back.
  await release();
  if (needsRehash(user.passwordHash)) await rehash(user, input.password);
  const result = await completeSignIn(user, { method: 'password', ip, rememberMe: input.rememberMe ?? false });
  return result.accessToken ? { ...result, deviceToken: await issueDeviceToken(user.email) } : result;
}

/** Upgrades a hash made with weaker parameters, only if the password did not change meanwhile. */
async function rehash(user: Account, password: string) {
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.user(user.tenantId, user.id),
        UpdateExpression: 'SET passwordHash = :new',
        ConditionExpression: 'passwordHash = :old',
        ExpressionAttributeValues: { ':new': await hashPassword(password), ':old': user.passwordHash },
      }),
    );
  } catch (err) {
    logger.warn('password rehash skipped', { error: err as Error });
  }
}
