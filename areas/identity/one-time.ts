import { randomInt } from 'node:crypto';
import { epochSeconds, randomToken, sameDigest, sha256 } from '#shared/auth/opaque.ts';
import { deleteItem, putItem, type TransactItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { config } from '#shared/platform/config.ts';
import { identityKeys, type OneTimeItem } from './records.ts';
import { writeOne } from '#shared/data/write-one.ts';

/**
 * Short-lived one-time secrets addressed by kind and subject (the user id): e-mail verification
 * codes and password reset tokens. Only a salted SHA-256 of the secret is stored; a match is
 * consumed with a condition on the stored hash, so it works once.
 *
 * Guessing is bounded differently by strength. A reset token has 256 bits: no per-secret counter
 * (one would only let strangers cancel the owner's real token); the per-IP route limit remains.
 * A 6-digit code is guessable, so failures are counted per source address (5 each) and in total
 * (20): one stranger cannot burn the owner's code, many addresses together lock it, and the owner
 * asks for a fresh one. Each check spends its attempt atomically before comparing, so parallel
 * guesses cannot exceed either limit.
 */
export type OneTimeKind = 'VERIFY' | 'RESET';

export const VERIFY_CODE_TTL_SECONDS = 15 * 60;
export const RESET_TOKEN_TTL_SECONDS = 30 * 60;
/** Wrong codes one source address may try against one verification code. */
const MAX_ATTEMPTS_PER_ADDRESS = 5;
/** Wrong codes from all addresses together before the code is locked. */
const MAX_ATTEMPTS = 20;

export const sixDigitCode = () => randomInt(0, 1_000_000).toString().padStart(6, '0');

const digest = (salt: string, secret: string) => sha256(`${salt}:${secret}`);

/** Stores a new secret for the subject, replacing any earlier one (and its spent attempts). */
export function oneTimePut(
  kind: OneTimeKind,
  subject: string,
  secret: string,
  ttlSeconds: number,
  now = new Date(),
): TransactItem {
  const salt = randomToken(16);
  const expiresAt = epochSeconds(now.getTime()) + ttlSeconds;
  const item: OneTimeItem = {
    secretHash: digest(salt, secret),
    salt,
    attempts: 0,
    byAddress: {},
    expiresAt,
    createdAt: now.toISOString(),
  };
  return putItem({ ...identityKeys.oneTime(kind, subject), ...item, ttl: expiresAt });
}

/** Stores a new secret on its own (a resent code), replacing any earlier one. */
export async function storeOneTime(
  kind: OneTimeKind,
  subject: string,
  secret: string,
  ttlSeconds: number,
): Promise<void> {
  await writeOne(oneTimePut(kind, subject, secret, ttlSeconds));
}

export type CheckOutcome =
  | { ok: true; secretHash: string }
  | { ok: false; reason: 'missing' | 'expired' | 'locked' | 'mismatch' };

const compare = (item: OneTimeItem, secret: string): CheckOutcome =>
  sameDigest(digest(item.salt, secret), item.secretHash)
    ? { ok: true, secretHash: item.secretHash }
    : { ok: false, reason: 'mismatch' };

/** A reset token: compared without spending anything (see above). */
async function checkToken(subject: string, secret: string, now: Date): Promise<CheckOutcome> {
  const item = await getOneTime('RESET', subject);
  if (!item) return { ok: false, reason: 'missing' };
  if (item.expiresAt <= epochSeconds(now.getTime())) return { ok: false, reason: 'expired' };
  return compare(item, secret);
}

/** A verification code: spends one attempt of the address and of the total, then compares. */
async function checkCode(subject: string, secret: string, address: string, now: Date): Promise<CheckOutcome> {
  const spent = await writeOne<OneTimeItem>(
    {
      Update: {
        TableName: config.tableName,
        Key: identityKeys.oneTime('VERIFY', subject),
        UpdateExpression: 'ADD attempts :one, byAddress.#addr :one',
        ConditionExpression: [
          'attribute_exists(pk) AND attempts < :max AND expiresAt > :now',
          '(attribute_not_exists(byAddress.#addr) OR byAddress.#addr < :perAddress)',
        ].join(' AND '),
        ExpressionAttributeNames: { '#addr': sha256(address).slice(0, 16) },
        ExpressionAttributeValues: {
          ':one': 1,
          ':max': MAX_ATTEMPTS,
          ':perAddress': MAX_ATTEMPTS_PER_ADDRESS,
          ':now': epochSeconds(now.getTime()),
        },
      },
    },
    { returnNew: true },
  );
  if (spent.written) return compare(spent.attributes!, secret);
  // No attempt left to spend: tell a missing code from an expired or a locked one.
  const current = await getOneTime('VERIFY', subject);
  if (!current) return { ok: false, reason: 'missing' };
  return { ok: false, reason: current.expiresAt <= epochSeconds(now.getTime()) ? 'expired' : 'locked' };
}

export function checkOneTime(
  kind: OneTimeKind,
  subject: string,
  secret: string,
  address: string,
  now = new Date(),
): Promise<CheckOutcome> {
  return kind === 'RESET' ? checkToken(subject, secret, now) : checkCode(subject, secret, address, now);
}

/** Deletes the secret only if it is still the one that was checked: a second use fails the transaction. */
export const consumeOneTime = (kind: OneTimeKind, subject: string, secretHash: string): TransactItem =>
  deleteItem(identityKeys.oneTime(kind, subject), 'secretHash = :h', { ':h': secretHash });

const getOneTime = (kind: OneTimeKind, subject: string) =>
  get<OneTimeItem>(identityKeys.oneTime(kind, subject), { consistent: true });

/**
 * A per-subject cooldown ("once per N seconds"), exact rather than a fixed window: the claim
 * succeeds only when the last one is at least N seconds old. Returns the seconds left otherwise.
 */
const RESEND_COOLDOWN_SECONDS = 60;

const cooldownKey = (subject: string) => identityKeys.oneTime('RESEND', subject);

/** The cooldown as started by a write it belongs to (the first verification code at registration). */
export function cooldownPut(subject: string, now = new Date()): TransactItem {
  return putItem({
    ...cooldownKey(subject),
    sentAt: now.getTime(),
    ttl: epochSeconds(now.getTime()) + RESEND_COOLDOWN_SECONDS + 60,
  });
}

export async function claimCooldown(
  subject: string,
  seconds = RESEND_COOLDOWN_SECONDS,
  now = Date.now(),
): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
  const claimed = await writeOne({
    Update: {
      TableName: config.tableName,
      Key: cooldownKey(subject),
      UpdateExpression: 'SET sentAt = :now, #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(pk) OR sentAt <= :cutoff',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':now': now,
        ':cutoff': now - seconds * 1000,
        ':ttl': epochSeconds(now) + seconds + 60,
      },
    },
  });
  if (claimed.written) return { allowed: true };
  const current = await get<{ sentAt?: number }>(cooldownKey(subject), { consistent: true });
  const sentAt = Number(current?.sentAt ?? now);
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((sentAt + seconds * 1000 - now) / 1000)) };
}

/** Gives a cooldown back (the work it guarded failed and will be retried); gone already is the same. */
export async function releaseCooldown(subject: string): Promise<void> {
  await writeOne(deleteItem(cooldownKey(subject)));
}
