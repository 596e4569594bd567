import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { keyOf, type Key } from './keys.ts';

/**
 * Items of a Query, following pages until `wanted` items are read or the key range ends.
 * Without a filter each page asks only for what is still missing; with one, DynamoDB applies
 * `Limit` before the filter, so pages run unlimited.
 */
export async function queryItems<T = Record<string, unknown>>(
  input: QueryCommandInput,
  wanted = Number.POSITIVE_INFINITY,
): Promise<T[]> {
  const items: T[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const remaining = wanted - items.length;
    const out = await ddb().send(
      new QueryCommand({
        ...input,
        ExclusiveStartKey,
        ...(Number.isFinite(remaining) && !input.FilterExpression ? { Limit: remaining } : {}),
      }),
    );
    items.push(...((out.Items ?? []) as T[]));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey && items.length < wanted);
  return items;
}

/** The keys of every item in one partition (for deleting it whole). */
export const partitionKeys = async (pk: string): Promise<Key[]> =>
  (
    await queryItems<Key>({
      TableName: config.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ProjectionExpression: 'pk, sk',
    })
  ).map(keyOf);

/** How many items a Query matches (filter included), without transferring them. */
export async function queryCount(input: QueryCommandInput): Promise<number> {
  let count = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(new QueryCommand({ ...input, Select: 'COUNT', ExclusiveStartKey }));
    count += out.Count ?? 0;
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
}

/** Every item whose `id` attribute is `id`, from the keys-only byId index (one Query): where a record lives. */
export async function keysById(id: string): Promise<Record<string, unknown>[]> {
  const out = await ddb().send(
    new QueryCommand({
      TableName: config.tableName,
      IndexName: 'byId',
      KeyConditionExpression: '#id = :id',
      ExpressionAttributeNames: { '#id': 'id' },
      ExpressionAttributeValues: { ':id': id },
    }),
  );
  return out.Items ?? [];
}

/**
 * The records of one base-table partition, strongly consistent, with only `attributes` (a
 * comma-separated projection): those that carry an id, so not the partition's list counter.
 */
export const recordsOf = <T>(pk: string, attributes: string) =>
  queryItems<T>({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk',
    FilterExpression: 'attribute_exists(id)',
    ExpressionAttributeValues: { ':pk': pk },
    ProjectionExpression: attributes,
    ConsistentRead: true,
  });
