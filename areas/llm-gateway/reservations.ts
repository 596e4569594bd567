import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, itemOfFailure } from '#shared/data/condition-failure.ts';
import { keyOf, type Key } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { logger } from '#shared/runtime/logger.ts';
import { RESERVATIONS_INDEX, reservationIndex } from './records.ts';

/**
 * Reserve, settle, release (docs/decisions/llm-gateway.md, "Reservations"). A hold is ONE
 * conditional UpdateItem on the item that carries a limit (the tenant's month allowance in tokens,
 * a gateway key's budget in billionths of a dollar): it adds the worst case to `committed{Unit}`
 * (settled plus reserved) only while the sum stays within the limit, and writes the reservation
 * under its own attribute (`r_{requestId}`) with an expiry. Settling replaces the worst case with
 * the real use; releasing gives it back. Both are conditional on the reservation still being there,
 * so a call and the scheduler's sweep never both give the same hold back.
 *
 * The shared client retries a write whose answer was lost, so every write here is conditional on
 * its own attribute and a retry of one that landed changes nothing: a hold on its reservation not
 * being there yet, a settle or a release on it still being there. A reservation the sweep released
 * leaves a marker (`x_{requestId}`) until a late settle counts its use once or the marker expires.
 */
type Unit = 'Tokens' | 'Nano';

export interface Hold {
  key: Key;
  unit: Unit;
  amount: number;
  /** null: no limit, so nothing is held (no room to keep); the use is still counted at settle. */
  limit: number | null;
}

interface StoredReservation {
  unit: Unit;
  amount: number;
  expiresAt: number;
}

/** A call that has not settled after this is taken for dead (longer than any Lambda runs). */
export const RESERVATION_TTL_MS = 16 * 60_000;

/** How long a released reservation's marker waits for its call's late settle. */
const RELEASED_MARK_MS = 60 * 60_000;

const attr = (requestId: string) => `r_${requestId}`;
const releasedMark = (requestId: string) => `x_${requestId}`;

/** Holds the amount; false when the limit would be passed (nothing is written then). */
export async function hold(h: Hold, requestId: string, now = Date.now()) {
  if (h.limit === null) return true;
  if (h.amount > h.limit) return false;
  const reservation: StoredReservation = { unit: h.unit, amount: h.amount, expiresAt: now + RESERVATION_TTL_MS };
  const index = reservationIndex(h.key);
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: h.key,
        UpdateExpression: 'SET #r = :r, gsi2pk = :gp, gsi2sk = :gs ADD #c :n, pending :one',
        ConditionExpression: 'attribute_not_exists(#r) AND (attribute_not_exists(#c) OR #c <= :max)',
        ExpressionAttributeNames: { '#r': attr(requestId), '#c': `committed${h.unit}` },
        ExpressionAttributeValues: {
          ':r': reservation,
          ':gp': index.gsi2pk,
          ':gs': index.gsi2sk,
          ':n': h.amount,
          ':one': 1,
          ':max': h.limit - h.amount,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return true;
  } catch (err) {
    // The reservation already there is this hold's own first attempt, whose answer was lost.
    if (isConditionFailure(err)) return attr(requestId) in itemOfFailure(err);
    throw err;
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

const names = (h: Hold, extra: Record<string, unknown>) => ({
  '#c': `committed${h.unit}`,
  '#u': `used${h.unit}`,
  ...Object.fromEntries(Object.keys(extra).map((k, i) => [`#x${i}`, k])),
});
const extraValues = (extra: Record<string, unknown>) =>
  Object.fromEntries(Object.values(extra).map((v, i) => [`:x${i}`, v]));
const setPart = (extra: Record<string, unknown>) => {
  const sets = Object.keys(extra).map((_, i) => `#x${i} = :x${i}`);
  return sets.length ? ` SET ${sets.join(', ')}` : '';
};

/** Counts a use where nothing was held (no limit). */
async function count(h: Hold, used: number, extra: Record<string, unknown>) {
  await ddb().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: h.key,
      UpdateExpression: `ADD #c :used, #u :used${setPart(extra)}`,
      ExpressionAttributeNames: names(h, extra),
      ExpressionAttributeValues: { ':used': used, ...extraValues(extra) },
    }),
  );
}

/** Counts the use of a call whose reservation the sweep released first, once: its marker goes with it. */
async function countReleased(h: Hold, requestId: string, used: number, extra: Record<string, unknown>) {
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: h.key,
        UpdateExpression: `REMOVE #x ADD #c :used, #u :used, pending :minus${setPart(extra)}`,
        ConditionExpression: 'attribute_exists(#x)',
        ExpressionAttributeNames: { ...names(h, extra), '#x': releasedMark(requestId) },
        ExpressionAttributeValues: { ':used': used, ':minus': -1, ...extraValues(extra) },
      }),
    );
    logger.warn('reservation released before its call settled', { requestId, key: h.key.pk });
  } catch (err) {
    // Neither the reservation nor its marker: this settle already landed (a retried write).
    if (!isConditionFailure(err)) throw err;
  }
}

/**
 * Replaces the hold by the real use (`used{Unit}` grows by it). When the sweep released the hold
 * first (the call outlived its expiry), the use is still counted, once.
 */
export async function settle(h: Hold, requestId: string, used: number, extra: Record<string, unknown> = {}) {
  if (h.limit === null) return count(h, used, extra);
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: h.key,
        UpdateExpression: `REMOVE #r ADD #c :delta, #u :used, pending :minus${setPart(extra)}`,
        ConditionExpression: 'attribute_exists(#r)',
        ExpressionAttributeNames: { ...names(h, extra), '#r': attr(requestId) },
        ExpressionAttributeValues: { ':delta': used - h.amount, ':used': used, ':minus': -1, ...extraValues(extra) },
      }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    await countReleased(h, requestId, used, extra);
  }
}

/** Gives a hold back (nothing to give for a hold without a limit). */
export const giveBack = (h: Hold, requestId: string) =>
  h.limit === null ? Promise.resolve(true) : release(h.key, requestId, h.unit, h.amount);

/**
 * Gives a hold back (the call failed, or another limit refused it). Released by the sweep, it
 * leaves a marker in its place, counted in `pending` so the item stays where the sweep looks.
 */
async function release(key: Key, requestId: string, unit: Unit, amount: number, markUntil?: number) {
  try {
    const out = await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: key,
        UpdateExpression: markUntil
          ? 'REMOVE #r SET #x = :until ADD #c :back'
          : 'REMOVE #r ADD #c :back, pending :minus',
        ConditionExpression: 'attribute_exists(#r)',
        ExpressionAttributeNames: {
          '#r': attr(requestId),
          '#c': `committed${unit}`,
          ...(markUntil ? { '#x': releasedMark(requestId) } : {}),
        },
        ExpressionAttributeValues: { ':back': -amount, ...(markUntil ? { ':until': markUntil } : { ':minus': -1 }) },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    await leaveIndexWhenIdle(key, out.Attributes?.pending);
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/** Drops a released reservation's marker whose call never came back to settle. */
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
 * The scheduler's sweep (every minute): releases the reservations of calls that died (past their
 * expiry). Reads only the items that hold reservations (a sparse index partition), never a Scan.
 * Returns how many it released.
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
        const r = value as StoredReservation;
        if (Number(r.expiresAt) > now) continue;
        if (await release(key, name.slice(2), r.unit, Number(r.amount), now + RELEASED_MARK_MS)) released++;
      }
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  if (released) logger.info('expired model-call reservations released', { released });
  return released;
}
