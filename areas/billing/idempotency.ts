import { createHash } from 'node:crypto';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Key } from '#shared/data/keys.ts';
import { get } from '#shared/data/read.ts';
import { idempotencyKeyReused, idempotencyRequestInProgress, invalidIdempotencyKey } from './errors.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { billingKeys } from './records.ts';

/** Keys are kept a day: long enough for any client retry, short enough not to pile up. */
const KEY_TTL_SECONDS = 24 * 3600;
const KEY_PATTERN = /^[\x21-\x7e]{1,200}$/;

/** An idempotency key's item: operational (expires by TTL), not a record, so single commands, not commitChange. */
interface KeyItem {
  bodyHash: string;
  state: 'running' | 'done';
  /** The first answer's result, as JSON (`reply` on keys written before issue 26, for their last day). */
  result?: string;
  reply?: string;
}

/** Claims the key: false when it exists already. */
async function claim(key: Key, bodyHash: string): Promise<boolean> {
  try {
    await ddb().send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...key, bodyHash, state: 'running', ttl: Math.floor(Date.now() / 1000) + KEY_TTL_SECONDS },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (err) {
    if ((err as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw err;
  }
}

/** Keeps the first answer under the key. */
const complete = (key: Key, result: unknown) =>
  ddb().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: key,
      UpdateExpression: 'SET #state = :done, #result = :result',
      ExpressionAttributeNames: { '#state': 'state', '#result': 'result' },
      ExpressionAttributeValues: { ':done': 'done', ':result': JSON.stringify(result ?? null) },
    }),
  );

/** Frees the key of a request that failed, so it may be retried. */
const release = (key: Key) =>
  ddb()
    .send(new DeleteCommand({ TableName: config.tableName, Key: key }))
    .then(() => undefined)
    .catch(() => undefined);

/**
 * Runs a money-moving request at most once per `Idempotency-Key`: the first request with a key
 * runs and its result is kept; the same key with the same body gets that result again; the same
 * key with another body is 409. A request that failed leaves nothing behind, so it may be retried.
 */
export async function idempotent<T>(
  tenantId: string,
  scope: string,
  key: string | undefined,
  body: unknown,
  run: () => Promise<T>,
): Promise<T> {
  if (key === undefined) return run();
  if (!KEY_PATTERN.test(key)) throw invalidIdempotencyKey();
  const itemKey = billingKeys.idempotency(tenantId, scope, key);
  const bodyHash = createHash('sha256')
    .update(JSON.stringify(body ?? null))
    .digest('hex');
  if (!(await claim(itemKey, bodyHash))) {
    const seen = await get<KeyItem>(itemKey, { consistent: true });
    if (seen?.bodyHash !== bodyHash) throw idempotencyKeyReused();
    if (seen.state !== 'done') throw idempotencyRequestInProgress();
    return JSON.parse(String(seen.result ?? seen.reply)) as T;
  }
  let result: T;
  try {
    result = await run();
  } catch (err) {
    await release(itemKey);
    throw err;
  }
  await complete(itemKey, result);
  return result;
}
