import { createHash } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { billingKeys } from './records.ts';
import { badRequest, conflict } from '#shared/http/errors.ts';
import type { Reply } from '#shared/http/responses.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';

/** Keys are kept a day: long enough for any client retry, short enough not to pile up. */
const KEY_TTL_SECONDS = 24 * 3600;
const KEY_PATTERN = /^[\x21-\x7e]{1,200}$/;

/**
 * Runs a money-moving request at most once per `Idempotency-Key`: the first request with a key
 * runs and its answer is kept; the same key with the same body gets that answer again; the same
 * key with another body is 409. A request that failed leaves nothing behind, so it may be retried.
 */
export async function idempotent(
  t: string,
  scope: string,
  key: string | undefined,
  body: unknown,
  run: () => Promise<Reply>,
): Promise<Reply> {
  if (key === undefined) return run();
  if (!KEY_PATTERN.test(key))
    throw badRequest('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1-200 visible ASCII characters');
  const itemKey = billingKeys.idempotency(t, scope, key);
  const bodyHash = createHash('sha256')
    .update(JSON.stringify(body ?? null))
    .digest('hex');
  try {
    await ddb().send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...itemKey, bodyHash, state: 'running', ttl: Math.floor(Date.now() / 1000) + KEY_TTL_SECONDS },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (err) {
    if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
    const seen = (await ddb().send(new GetCommand({ TableName: config.tableName, Key: itemKey, ConsistentRead: true })))
      .Item;
    if (seen?.bodyHash !== bodyHash)
      throw conflict('This Idempotency-Key was used with another request body', 'IDEMPOTENCY_KEY_REUSED');
    if (seen.state !== 'done')
      throw conflict(
        'A request with this Idempotency-Key is still running; retry shortly',
        'IDEMPOTENCY_REQUEST_IN_PROGRESS',
      );
    return JSON.parse(String(seen.reply)) as Reply;
  }
  let reply: Reply;
  try {
    reply = await run();
  } catch (err) {
    await ddb()
      .send(new DeleteCommand({ TableName: config.tableName, Key: itemKey }))
      .catch(() => undefined);
    throw err;
  }
  await ddb().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: itemKey,
      UpdateExpression: 'SET #state = :done, reply = :reply',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':done': 'done', ':reply': JSON.stringify(reply) },
    }),
  );
  return reply;
}
