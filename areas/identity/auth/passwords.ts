import * as z from 'zod/mini';
import type { Principal } from '#shared/auth/access-token.ts';
import { randomToken } from '#shared/auth/opaque.ts';
import { commitChange, orConflict, updateItem, type TransactItem } from '#shared/data/commit.ts';
import { unauthorized } from '#shared/http/errors.ts';
import {
  invalidCurrentPassword,
  invalidResetToken,
  passwordNotSet,
  passwordUnchanged,
} from '#areas/identity/errors.ts';
import { mailer } from '#shared/platform/ports.ts';
import { enqueue, messageKind } from '#shared/queue/messages.ts';
import {
  checkOneTime,
  claimCooldown,
  consumeOneTime,
  oneTimePut,
  releaseCooldown,
  RESET_TOKEN_TTL_SECONDS,
} from '#areas/identity/one-time.ts';
import { hashPassword, verifyPassword } from '#areas/identity/password.ts';
import { identityKeys } from '#areas/identity/records.ts';
import { revokeAllFamilies } from '#areas/identity/refresh-tokens.ts';
import { findUserByEmail, getUser } from '#areas/identity/user-accounts.ts';
import { committedUnless } from '#shared/data/write-one.ts';
import { clearSignInFailures } from './account-throttle.ts';
import { authChange, recordAuth } from './audit.ts';
import { passwordResetEmail } from './emails.ts';
import type { Account } from './session.ts';

/**
 * The new password hash together with a bump of the user's session version, which invalidates
 * every refresh token family of the user at once (families record the version they started with).
 */
function setPasswordItem(
  user: Pick<Account, 'id' | 'tenantId'>,
  passwordHash: string,
  opts: { expectHash?: string | null; verifyEmail?: boolean } = {},
): TransactItem {
  return updateItem(
    identityKeys.user(user.tenantId, user.id),
    {
      passwordHash,
      passwordChangedAt: new Date().toISOString(),
      ...(opts.verifyEmail ? { isEmailVerified: true } : {}),
    },
    {
      add: { sessionVersion: 1 },
      condition: opts.expectHash ? 'attribute_exists(pk) AND passwordHash = :old' : 'attribute_exists(pk)',
      ...(opts.expectHash ? { values: { ':old': opts.expectHash } } : {}),
    },
  );
}

/**
 * Always 200 with null, after the same work for every address: one queue message. Whether the
 * account exists is decided by the e-mail worker (`issueResetToken`), so the answer's timing says
 * nothing about it.
 */
export async function forgotPassword(input: { email: string }, ip: string) {
  await enqueue(RESET_REQUEST, { email: input.email, ip });
  return null;
}

export const RESET_REQUEST = messageKind('email', 'password.reset.request', () =>
  z.object({ email: z.string(), ip: z.string() }),
);

/**
 * Run by the e-mail worker. For an active account a random reset token (256 bits, stored hashed,
 * 30 minutes, single use) is e-mailed as a link and as a code; at most one e-mail per address per
 * 60 s (later requests in that time are dropped).
 */
export async function issueResetToken({ email, ip }: { email: string; ip: string }) {
  const user = await findUserByEmail(email);
  if (!user?.isActive) return;
  const cooldown = await claimCooldown(`reset:${user.email}`);
  if (!cooldown.allowed) return;
  const token = randomToken();
  await commitChange(
    [oneTimePut('RESET', user.id, token, RESET_TOKEN_TTL_SECONDS)],
    authChange({ action: 'password.reset.requested', user, details: { ip } }),
  );
  // Already in the e-mail worker: send directly rather than through the queue again. A failed send
  // gives the cooldown back, so the queue's retry can still send.
  try {
    await (await mailer()).send(passwordResetEmail(user.email, token));
  } catch (err) {
    await releaseCooldown(`reset:${user.email}`);
    throw err;
  }
}

/** 400 INVALID_RESET_TOKEN for an unknown address, a wrong, expired, spent or used token. */
export async function resetPassword(input: { email: string; resetToken: string; newPassword: string }, ip: string) {
  const user: Account | undefined = await findUserByEmail(input.email);
  const fail = async (reason: string) => {
    await recordAuth({
      action: 'password.reset.failed',
      user: user ?? null,
      email: input.email,
      details: { ip, reason },
    });
    return invalidResetToken();
  };
  if (!user) throw await fail('UNKNOWN_EMAIL');
  const check = await checkOneTime('RESET', user.id, input.resetToken, ip);
  if (!check.ok) throw await fail(check.reason.toUpperCase());
  // Spent by a concurrent reset, or the account went away: the token no longer resets anything.
  const spent = invalidResetToken();
  const failed = await committedUnless(
    commitChange(
      [
        orConflict(consumeOneTime('RESET', user.id, check.secretHash), spent),
        // Following the e-mailed link proves control of the address.
        orConflict(setPasswordItem(user, await hashPassword(input.newPassword), { verifyEmail: true }), spent),
      ],
      authChange({ action: 'password.reset', user, details: { ip } }),
    ),
    spent,
  );
  if (failed) throw await fail('ALREADY_USED');
  await revokeAllFamilies(user.id, 'password-reset');
  // The owner proved control of the mailbox: guesses against the old password no longer matter.
  await clearSignInFailures(user.email);
  return null;
}

/** Needs the current password; afterwards every session (refresh token) of the user is revoked. */
export async function changePassword(
  principal: Principal,
  input: { currentPassword: string; newPassword: string },
  ip: string,
) {
  const user = await getUser(principal.tenantId, principal.userId);
  if (!user) throw unauthorized();
  const fail = async (reason: string) =>
    recordAuth({ action: 'password.change.failed', user, details: { ip, reason } });
  if (!user.passwordHash) {
    await fail(passwordNotSet.code);
    throw passwordNotSet();
  }
  if (!(await verifyPassword(input.currentPassword, user.passwordHash))) {
    await fail(invalidCurrentPassword.code);
    throw invalidCurrentPassword();
  }
  if (input.currentPassword === input.newPassword) {
    await fail(passwordUnchanged.code);
    throw passwordUnchanged();
  }
  await commitChange(
    [
      orConflict(
        setPasswordItem(user, await hashPassword(input.newPassword), { expectHash: user.passwordHash }),
        'The password was changed concurrently; try again',
      ),
    ],
    authChange({ action: 'password.changed', user, details: { ip } }),
  );
  await revokeAllFamilies(user.id, 'password-change');
  return null;
}
