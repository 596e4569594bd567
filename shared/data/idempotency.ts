import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import type { TransactItem } from './commit.ts';
import { isConditionFailure } from './condition-failure.ts';
import type { Key } from './keys.ts';
import { get } from './read.ts';

/**
 * What must run once (a money-moving request, a queue message, a visitor's turn) is claimed first
 * under its own key. A claim is `processing` under a lease, then `done` (with the first run's result,
 * replayed to repeats) or released by a failure (deleted, or marked `released` where a transaction
 * keeps its data) so the next attempt runs it again. A lease that ran out means its holder died: the
 * next attempt takes the claim over. The item expires by TTL.
 */
export interface Claim<D = Record<string, unknown>> {
  status: 'processing' | 'done' | 'released';
  /** Epoch milliseconds. */
  leaseUntil: number;
  /** Epoch seconds (the table's TTL attribute). */
  ttl: number;
  /** What the holder keeps for a later attempt (a body's hash, the message a turn answers). */
  data?: D;
  /** The first run's result as JSON: replayed as it was first serialized, whatever it holds. */
  result?: string;
}

export interface ClaimOptions<D> {
  leaseMs: number;
  ttlSeconds: number;
  data?: D;
}

export type ClaimOutcome<D> =
  | { kind: 'claimed' }
  | { kind: 'done'; claim: Claim<D> }
  | { kind: 'in-progress'; claim: Claim<D> | undefined };

/** Only a new key: what a transaction claims. */
const NEW_ONLY = { ConditionExpression: 'attribute_not_exists(pk)' };
/** A new key, a released claim, or one whose lease ran out. */
const free = (now: number) => ({
  ConditionExpression:
    'attribute_not_exists(pk) OR #status = :released OR (#status = :processing AND leaseUntil < :now)',
  ExpressionAttributeNames: { '#status': 'status' },
  ExpressionAttributeValues: { ':released': 'released', ':processing': 'processing', ':now': now },
});

function claimRecord<D>(key: Key, opts: ClaimOptions<D>, now: number, finished?: { result: unknown }): Key & Claim<D> {
  return {
    ...key,
    status: finished ? 'done' : 'processing',
    leaseUntil: now + opts.leaseMs,
    ttl: Math.floor(now / 1000) + opts.ttlSeconds,
    ...(opts.data !== undefined ? { data: opts.data } : {}),
    ...(finished ? { result: JSON.stringify(finished.result ?? null) } : {}),
  };
}

/**
 * The claim as an item of a transaction whose other writes must happen once (a turn's visitor
 * message): it takes a new key only, since taking over a released or expired claim would repeat
 * them; a later attempt reads what the first kept and takes the claim over with `claim`. Already
 * `done` when there is nothing left to run (`finished`).
 */
export const claimItem = <D>(key: Key, opts: ClaimOptions<D>, finished?: { result: unknown }): TransactItem => ({
  Put: { TableName: config.tableName, Item: claimRecord(key, opts, Date.now(), finished), ...NEW_ONLY },
});

/** Claims the key unless a live claim or a result holds it; when it does, says which and gives it. */
export async function claim<D>(key: Key, opts: ClaimOptions<D>): Promise<ClaimOutcome<D>> {
  try {
    const now = Date.now();
    await ddb().send(new PutCommand({ TableName: config.tableName, Item: claimRecord(key, opts, now), ...free(now) }));
    return { kind: 'claimed' };
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    const seen = await readClaim<D>(key);
    return seen?.status === 'done' ? { kind: 'done', claim: seen } : { kind: 'in-progress', claim: seen };
  }
}

export const readClaim = <D>(key: Key) => get<Claim<D>>(key, { consistent: true });

/** Still running under its lease: nobody else may run it now. */
export const held = (claim: Claim<unknown>) => claim.status === 'processing' && claim.leaseUntil >= Date.now();

/** The first run's result kept under a `done` claim. */
export const resultOf = <R>(claim: Claim<unknown>): R => JSON.parse(claim.result ?? 'null') as R;

const update = (key: Key, status: Claim['status'], result?: unknown) => ({
  TableName: config.tableName,
  Key: key,
  UpdateExpression: `SET #status = :status${result === undefined ? '' : ', #result = :result'}`,
  ExpressionAttributeNames: { '#status': 'status', ...(result === undefined ? {} : { '#result': 'result' }) },
  ExpressionAttributeValues: {
    ':status': status,
    ...(result === undefined ? {} : { ':result': JSON.stringify(result ?? null) }),
  },
});

/** Marks the claim done, keeping the result for repeats. */
export const doneItem = (key: Key, result?: unknown): TransactItem => ({ Update: update(key, 'done', result) });
export const done = (key: Key, result?: unknown) => ddb().send(new UpdateCommand(update(key, 'done', result)));

/**
 * Gives the claim back after a failure, so the next attempt runs again. In a transaction the claim
 * stays, marked released, with what it keeps for that attempt (the turn's visitor message).
 */
export const releaseItem = (key: Key): TransactItem => ({ Update: update(key, 'released') });
/**
 * Standalone, nothing of the failed attempt is kept. Best effort: a claim left behind is taken over
 * when its lease runs out.
 */
export const release = (key: Key) =>
  ddb()
    .send(new DeleteCommand({ TableName: config.tableName, Key: key }))
    .then(() => undefined)
    .catch(() => undefined);
