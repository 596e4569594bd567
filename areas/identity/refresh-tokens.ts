import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/data/keys.ts';
import { transact, type TransactItem } from '#shared/data/transact.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { epochSeconds, randomToken, sha256 } from '#shared/auth/opaque.ts';
import { queryItems } from '#shared/data/query.ts';

/** Refresh token lifetimes, sliding on every rotation: 30 days with rememberMe, 1 day without. */
export const REFRESH_TTL_SECONDS = { rememberMe: 30 * 24 * 3600, session: 24 * 3600 } as const;

export const refreshTtl = (rememberMe: boolean) =>
  rememberMe ? REFRESH_TTL_SECONDS.rememberMe : REFRESH_TTL_SECONDS.session;

/** One refresh token, stored under the SHA-256 of its value. Rotated tokens stay to detect reuse. */
export interface RefreshTokenItem {
  familyId: string;
  userId: string;
  tenantId: string | null;
  status: 'active' | 'rotated';
  createdAt: string;
  /** Epoch seconds; the `ttl` attribute carries the same value (plus a day) for DynamoDB expiry. */
  expiresAt: number;
}

/** A rotation family: every token descending from one sign-in. Revoking it ends the session. */
export interface TokenFamily {
  familyId: string;
  userId: string;
  tenantId: string | null;
  rememberMe: boolean;
  /** The user's session version at sign-in; a password change or reset bumps the user's. */
  sessionVersion: number;
  createdAt: string;
  expiresAt: number;
  revokedAt?: string;
  revokedReason?: string;
}

export interface SessionOwner {
  id: string;
  tenantId: string | null;
  sessionVersion?: number;
}

// Expired items are kept a day past their expiry (TTL deletion is lazy anyway) so that reuse of a
// just-expired rotated token is still recognised.
const ttlFor = (expiresAt: number) => expiresAt + 24 * 3600;

const tokenPut = (token: string, item: RefreshTokenItem): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: { ...keys.refreshToken(sha256(token)), ...item, ttl: ttlFor(item.expiresAt) },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** A new family and its first token, as transaction items (written with the sign-in's audit entry). */
export function newSession(user: SessionOwner, rememberMe: boolean, now = new Date()) {
  const refreshToken = randomToken();
  const familyId = crypto.randomUUID();
  const createdAt = now.toISOString();
  const expiresAt = epochSeconds(now.getTime()) + refreshTtl(rememberMe);
  const family: TokenFamily = {
    familyId,
    userId: user.id,
    tenantId: user.tenantId,
    rememberMe,
    sessionVersion: user.sessionVersion ?? 0,
    createdAt,
    expiresAt,
  };
  const items: TransactItem[] = [
    {
      Put: {
        TableName: config.tableName,
        Item: {
          ...keys.tokenFamily(familyId),
          ...family,
          gsi2pk: keys.userTokenFamilies(user.id),
          gsi2sk: `${createdAt}#${familyId}`,
          ttl: ttlFor(expiresAt),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    tokenPut(refreshToken, {
      familyId,
      userId: user.id,
      tenantId: user.tenantId,
      status: 'active',
      createdAt,
      expiresAt,
    }),
  ];
  return { refreshToken, familyId, items };
}

export async function findRefreshToken(token: string): Promise<RefreshTokenItem | undefined> {
  const out = await ddb().send(
    new GetCommand({ TableName: config.tableName, Key: keys.refreshToken(sha256(token)), ConsistentRead: true }),
  );
  return out.Item as RefreshTokenItem | undefined;
}

export async function getFamily(familyId: string): Promise<TokenFamily | undefined> {
  const out = await ddb().send(
    new GetCommand({ TableName: config.tableName, Key: keys.tokenFamily(familyId), ConsistentRead: true }),
  );
  return out.Item as TokenFamily | undefined;
}

export type RotateOutcome = { ok: true; refreshToken: string } | { ok: false; reason: 'reused' | 'revoked' };

/**
 * Marks the presented token rotated and issues its successor in one transaction. The condition on
 * the old token makes a second use (even a concurrent one) lose, which the caller treats as reuse;
 * the condition on the family makes a rotation racing a revocation lose.
 */
export async function rotate(presented: string, family: TokenFamily, now = new Date()): Promise<RotateOutcome> {
  const refreshToken = randomToken();
  const createdAt = now.toISOString();
  const expiresAt = epochSeconds(now.getTime()) + refreshTtl(family.rememberMe);
  const outcome = await transact([
    {
      Update: {
        TableName: config.tableName,
        Key: keys.refreshToken(sha256(presented)),
        UpdateExpression: 'SET #status = :rotated, rotatedAt = :now',
        ConditionExpression: '#status = :active',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':rotated': 'rotated', ':active': 'active', ':now': createdAt },
      },
    },
    tokenPut(refreshToken, {
      familyId: family.familyId,
      userId: family.userId,
      tenantId: family.tenantId,
      status: 'active',
      createdAt,
      expiresAt,
    }),
    {
      Update: {
        TableName: config.tableName,
        Key: keys.tokenFamily(family.familyId),
        UpdateExpression: 'SET expiresAt = :exp, #ttl = :ttl, lastRotatedAt = :now',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revokedAt)',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':exp': expiresAt, ':ttl': ttlFor(expiresAt), ':now': createdAt },
      },
    },
  ]);
  if (outcome.ok) return { ok: true, refreshToken };
  return { ok: false, reason: outcome.failedAt.includes(0) ? 'reused' : 'revoked' };
}

/** Revokes a family (idempotent: the first reason and time are kept). */
export async function revokeFamily(familyId: string, reason: string, now = new Date()) {
  await ddb()
    .send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.tokenFamily(familyId),
        UpdateExpression:
          'SET revokedAt = if_not_exists(revokedAt, :now), revokedReason = if_not_exists(revokedReason, :reason)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': now.toISOString(), ':reason': reason },
      }),
    )
    .catch((err: { name?: string }) => {
      if (err.name !== 'ConditionalCheckFailedException') throw err;
    });
}

/**
 * Marks every family of a user revoked. The authoritative revocation is the user's session version
 * (bumped in the same transaction as the password change); this makes the family records say so too.
 */
export async function revokeAllFamilies(userId: string, reason: string): Promise<number> {
  const live = await queryItems<{ familyId: string }>({
    TableName: config.tableName,
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    FilterExpression: 'attribute_not_exists(revokedAt)',
    ExpressionAttributeValues: { ':pk': keys.userTokenFamilies(userId) },
    ProjectionExpression: 'familyId',
  });
  for (const family of live) await revokeFamily(String(family.familyId), reason);
  return live.length;
}

/** True when the family may still mint tokens for this user record. */
export const familyIsLive = (family: TokenFamily | undefined, user: SessionOwner, nowSeconds = epochSeconds()) =>
  !!family &&
  !family.revokedAt &&
  family.expiresAt > nowSeconds &&
  family.sessionVersion === (user.sessionVersion ?? 0);
