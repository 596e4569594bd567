import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, itemOfFailure, rawNumber } from '#shared/data/condition-failure.ts';
import { keyOf, type Key } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { get, getMany } from '#shared/data/read.ts';
import { logger } from '#shared/runtime/logger.ts';
import { RESERVATIONS_INDEX, reservationIndex } from './records.ts';

/**
 * The stored side of the gateway's leases (leases.ts; docs/decisions/llm-gateway.md, "Leases"). A
 * lease is ONE conditional UpdateItem on the item that carries a limit (the tenant's month allowance
 * in tokens, a gateway key's budget in billionths of a dollar): it adds the amount leased to
 * `committed{Unit}` (used plus held) only while the sum stays within the limit, and writes the lease
 * under its own attribute (`r_{leaseId}`) with an expiry and the item its calls record their use in.
 * Settling replaces the amount by the lease's use (`used{Unit}` grows by it). Both are conditional
 * on the lease's own attribute, so a retry of a write whose answer was lost changes nothing, and an
 * instance and the scheduler's sweep never both settle one lease. A lease its instance abandoned (a
 * frozen or recycled Lambda) is settled by the sweep after its expiry, to the use its calls recorded.
 */
type Unit = 'Tokens' | 'Nano';

export interface Hold {
  key: Key;
  unit: Unit;
  amount: number;
  /** null: no limit, so nothing is held; the lease counts its use all the same. */
  limit: number | null;
}

interface StoredLease {
  unit: Unit;
  amount: number;
  expiresAt: number;
  /** Where the lease's calls record their use (absent on a reservation of one call, as kept before leases). */
  usage?: Key;
}

/** A call that has not settled after this is taken for dead (longer than any Lambda runs). */
export const RESERVATION_TTL_MS = 16 * 60_000;

const attr = (leaseId: string) => `r_${leaseId}`;
export const usedField = (unit: Unit): `used${Unit}` => `used${unit}`;

/**
 * Leases the amount until `expiresAt`; false when the limit would be passed (nothing is written
 * then). The count after it comes back, to size the next lease by.
 */
export async function holdLease(
  h: Hold,
  leaseId: string,
  expiresAt: number,
  usage: Key,
): Promise<{ held: false } | { held: true; committed: number }> {
  if (h.limit !== null && h.amount > h.limit) return { held: false };
  const lease: StoredLease = { unit: h.unit, amount: h.amount, expiresAt, usage };
  const index = reservationIndex(h.key);
  const withinLimit = h.limit === null ? '' : ' AND (attribute_not_exists(#c) OR #c <= :max)';
  try {
    const out = await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: h.key,
        UpdateExpression: 'SET #r = :r, gsi2pk = :gp, gsi2sk = :gs ADD #c :n, pending :one',
        ConditionExpression: `attribute_not_exists(#r)${withinLimit}`,
        ExpressionAttributeNames: { '#r': attr(leaseId), '#c': `committed${h.unit}` },
        ExpressionAttributeValues: {
          ':r': lease,
          ':gp': index.gsi2pk,
          ':gs': index.gsi2sk,
          ':n': h.amount,
          ':one': 1,
          ...(h.limit === null ? {} : { ':max': h.limit - h.amount }),
        },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { held: true, committed: Number(out.Attributes?.[`committed${h.unit}`] ?? h.amount) };
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    // The lease already there is this write's own first attempt, whose answer was lost.
    const old = itemOfFailure(err);
    if (!(attr(leaseId) in old)) return { held: false };
    return { held: true, committed: rawNumber(old[`committed${h.unit}`], h.amount) };
  }
}

/**
 * Takes the item out of the sweep's index once no reservation is left on it (a new hold puts it
 * back). The sweep does it, not the call: one round trip fewer on every model call.
 */
async function leaveIndexWhenIdle(key: Key, pending: unknown) {
  if (Number(pending) !== 0) return;
  await ddb()
    .send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: key,
        UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
        ConditionExpression: 'pending = :zero',
        ExpressionAttributeValues: { ':zero': 0 },
      }),
    )
    .catch((err) => {
      if (!isConditionFailure(err)) throw err;
    });
}

const extraSets = (extra: Record<string, unknown>) => ({
  expression: Object.keys(extra).length
    ? ` SET ${Object.keys(extra)
        .map((_, i) => `#x${i} = :x${i}`)
        .join(', ')}`
    : '',
  names: Object.fromEntries(Object.keys(extra).map((k, i) => [`#x${i}`, k])),
  values: Object.fromEntries(Object.values(extra).map((v, i) => [`:x${i}`, v])),
});

/**
 * Replaces a lease's amount by its use. False when it was settled already: by the sweep (its
 * expiry passed), or by this write's own first attempt.
 */
export async function settleLease(
  key: Key,
  unit: Unit,
  leaseId: string,
  amount: number,
  used: number,
  extra: Record<string, unknown> = {},
) {
  const sets = extraSets(extra);
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: key,
        UpdateExpression: `REMOVE #r ADD #c :delta, #u :used, pending :minus${sets.expression}`,
        ConditionExpression: 'attribute_exists(#r)',
        ExpressionAttributeNames: {
          '#r': attr(leaseId),
          '#c': `committed${unit}`,
          '#u': usedField(unit),
          ...sets.names,
        },
        ExpressionAttributeValues: { ':delta': used - amount, ':used': used, ':minus': -1, ...sets.values },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/** The use a lease's calls recorded (leases.ts's record of each call adds to it, exactly once). */
async function recordedUse(usage: Key, unit: Unit) {
  const item = await get<Record<string, unknown>>(usage, { consistent: true, attributes: [usedField(unit)] });
  return Number(item?.[usedField(unit)] ?? 0);
}

/** Drops a marker that a reservation of one call released by the sweep left (kept before leases). */
async function dropMark(key: Key, name: string) {
  await ddb()
    .send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: key,
        UpdateExpression: 'REMOVE #x ADD pending :minus',
        ConditionExpression: 'attribute_exists(#x)',
        ExpressionAttributeNames: { '#x': name },
        ExpressionAttributeValues: { ':minus': -1 },
      }),
    )
    .catch((err) => {
      if (!isConditionFailure(err)) throw err;
    });
}

/**
 * The scheduler's sweep (every minute): settles the leases whose expiry passed (their instance
 * abandoned them, since an expiry is past the longest call a lease admits) to the use their calls
 * recorded, so what they held and did not use goes back to the limit's headroom. Reads only the items
 * that hold leases (a sparse index partition), never a Scan. Returns how many it settled.
 */
export async function releaseExpiredReservations(now = Date.now()): Promise<number> {
  let released = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await ddb().send(
      new QueryCommand({
        TableName: config.tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :p',
        ExpressionAttributeValues: { ':p': RESERVATIONS_INDEX },
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const key = keyOf(item);
      await leaveIndexWhenIdle(key, item.pending);
      for (const [name, value] of Object.entries(item)) {
        if (name.startsWith('x_') && Number(value) <= now) await dropMark(key, name);
        if (!name.startsWith('r_')) continue;
        const lease = value as StoredLease;
        if (Number(lease.expiresAt) > now) continue;
        const used = lease.usage ? await recordedUse(lease.usage, lease.unit) : 0;
        if (await settleLease(key, lease.unit, name.slice(2), Number(lease.amount), used)) released++;
      }
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  if (released) logger.info('expired model-call leases settled', { released });
  return released;
}

/**
 * What the calls counted on an item (a month's allowance, a key) have used: its own `used{Unit}`,
 * which counts a lease only once it is settled, and what its open leases' calls have recorded so
 * far. `lastUsedAt` is the latest of those records (null when no lease is open).
 */
export async function usedWithOpenLeases(item: Record<string, unknown> | undefined, unit: Unit) {
  const settled = Number(item?.[usedField(unit)] ?? 0);
  const usages = Object.entries(item ?? {})
    .filter(([name, v]) => name.startsWith('r_') && (v as StoredLease).usage)
    .map(([, v]) => (v as StoredLease).usage!);
  if (!usages.length) return { used: settled, lastUsedAt: null };
  const found = await getMany<Record<string, unknown>>(usages, { consistent: true });
  let used = settled;
  let lastUsedAt: string | null = null;
  for (const u of found.values()) {
    used += Number(u[usedField(unit)] ?? 0);
    const at = typeof u.lastUsedAt === 'string' ? u.lastUsedAt : null;
    if (at && (!lastUsedAt || at > lastUsedAt)) lastUsedAt = at;
  }
  return { used, lastUsedAt };
}
