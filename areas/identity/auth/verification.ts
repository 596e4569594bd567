import { PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  checkOneTime,
  claimCooldown,
  consumeOneTime,
  oneTimePut,
  sixDigitCode,
  VERIFY_CODE_TTL_SECONDS,
} from '#areas/identity/one-time.ts';
import { countAudit } from '#shared/data/audit.ts';
import { keys } from '#shared/data/keys.ts';
import { transact } from '#shared/data/transact.ts';
import { badRequest, rateLimited } from '#shared/http/errors.ts';
import { activatePendingTenantOnOwnerVerified } from '#areas/identity/invitations.ts';
import { findUserByEmail } from '#areas/identity/users.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { sendEmail } from '#shared/queue/email.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { authAuditItem } from './audit.ts';
import { verificationEmail } from './emails.ts';

const invalidCode = () => badRequest('INVALID_CODE', 'Invalid verification code');

/** 400 INVALID_CODE (wrong, unknown address, nothing pending), CODE_EXPIRED or TOO_MANY_ATTEMPTS. */
export async function verifyEmail(input: { email: string; code: string }, ip: string) {
  const user = await findUserByEmail(input.email);
  if (!user || user.isEmailVerified) throw invalidCode();
  const check = await checkOneTime('VERIFY', user.id, input.code, ip);
  if (!check.ok) {
    if (check.reason === 'expired')
      throw badRequest('CODE_EXPIRED', 'The verification code has expired; ask for a new one');
    if (check.reason === 'locked') throw badRequest('TOO_MANY_ATTEMPTS', 'Too many wrong codes; ask for a new one');
    throw invalidCode();
  }
  const now = new Date().toISOString();
  const outcome = await transact([
    consumeOneTime('VERIFY', user.id, check.secretHash),
    {
      Update: {
        TableName: config.tableName,
        Key: keys.user(user.tenantId, user.id),
        UpdateExpression: 'SET isEmailVerified = :true, emailVerifiedAt = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':true': true, ':now': now },
      },
    },
    authAuditItem({ action: 'email.verified', user, details: {} }),
  ]);
  if (!outcome.ok) throw invalidCode();
  await countAudit(1);
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
  await ddb().send(new PutCommand(oneTimePut('VERIFY', user.id, code, VERIFY_CODE_TTL_SECONDS).Put!));
  await sendEmail(verificationEmail(user.email, code));
  return null;
}
