import { epochSeconds, randomToken, sha256 } from '#shared/auth/opaque.ts';
import { commitChange, orConflict, putNew, updateItem, type TransactItem } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { unauthorized } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import {
  identityKeys,
  refreshTokenItem,
  sessionTtl,
  tokenFamilyItem,
  type RefreshTokenItem,
  type TokenFamily,
} from './records.ts';
import { committedUnless, writeOne } from '#shared/data/write-one.ts';

export type { RefreshTokenItem, TokenFamily };

/** Refresh token lifetimes, sliding on every rotation: 30 days with rememberMe, 1 day without. */
export const REFRESH_TTL_SECONDS = { rememberMe: 30 * 24 * 3600, session: 24 * 3600 } as const;

const refreshTtl = (rememberMe: boolean) => (rememberMe ? REFRESH_TTL_SECONDS.rememberMe : REFRESH_TTL_SECONDS.session);

export interface SessionOwner {
  id: string;
  tenantId: string | null;
  sessionVersion?: number;
}

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
  const token: RefreshTokenItem = {
    familyId,
    userId: user.id,
    tenantId: user.tenantId,
    status: 'active',
    createdAt,
    expiresAt,
  };
  const items: TransactItem[] = [
    putNew(tokenFamilyItem(family)),
    putNew(refreshTokenItem(sha256(refreshToken), token)),
  ];
  return { refreshToken, familyId, items };
}

export const findRefreshToken = (token: string) =>
  get<RefreshTokenItem>(identityKeys.refreshToken(sha256(token)), { consistent: true });

export const getFamily = (familyId: string) =>
  get<TokenFamily>(identityKeys.tokenFamily(familyId), { consistent: true });

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
  const reused = unauthorized('Invalid, expired or revoked refresh token');
  const revoked = unauthorized('Invalid, expired or revoked refresh token');
  const failed = await committedUnless(
    commitChange(
      [
        orConflict(
          updateItem(
            identityKeys.refreshToken(sha256(presented)),
            { status: 'rotated', rotatedAt: createdAt },
            { condition: '#status = :active', names: { '#status': 'status' }, values: { ':active': 'active' } },
          ),
          reused,
        ),
        putNew(
          refreshTokenItem(sha256(refreshToken), {
            familyId: family.familyId,
            userId: family.userId,
            tenantId: family.tenantId,
            status: 'active',
            createdAt,
            expiresAt,
          }),
        ),
        orConflict(
          updateItem(
            identityKeys.tokenFamily(family.familyId),
            { expiresAt, ttl: sessionTtl(expiresAt), lastRotatedAt: createdAt },
            { condition: 'attribute_exists(pk) AND attribute_not_exists(revokedAt)' },
          ),
          revoked,
        ),
      ],
      null,
    ),
    reused,
    revoked,
  );
  if (!failed) return { ok: true, refreshToken };
  return { ok: false, reason: failed === reused ? 'reused' : 'revoked' };
}

/**
 * Revokes a family (idempotent: the first reason and time are kept). A family already removed by
 * its TTL has nothing left to revoke.
 */
export async function revokeFamily(familyId: string, reason: string, now = new Date()): Promise<void> {
  await writeOne({
    Update: {
      TableName: config.tableName,
      Key: identityKeys.tokenFamily(familyId),
      UpdateExpression:
        'SET revokedAt = if_not_exists(revokedAt, :now), revokedReason = if_not_exists(revokedReason, :reason)',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':now': now.toISOString(), ':reason': reason },
    },
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
    ExpressionAttributeValues: { ':pk': identityKeys.userTokenFamilies(userId) },
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
