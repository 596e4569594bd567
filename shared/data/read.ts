import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { notFound } from '#shared/http/errors.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { keyId, type Key, type Item } from './keys.ts';

export interface ReadOptions {
  /** Strongly consistent: after a write the caller must see (state checks before a change). */
  consistent?: boolean;
  /** Only these attributes (names are escaped). */
  attributes?: readonly string[];
}

/** One GetItem: the item, or undefined. The only way the code reads a single item. */
export async function get<T = Item>(key: Key, opts: ReadOptions = {}): Promise<T | undefined> {
  const projection = opts.attributes?.length
    ? {
        ProjectionExpression: opts.attributes.map((_, i) => `#p${i}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(opts.attributes.map((name, i) => [`#p${i}`, name])),
      }
    : {};
  const out = await ddb().send(
    new GetCommand({
      TableName: config.tableName,
      Key: key,
      ...(opts.consistent ? { ConsistentRead: true } : {}),
      ...projection,
    }),
  );
  return out.Item as T | undefined;
}

/** One GetItem, or 404 naming `what` ("Supplier not found"). */
export async function getOr404<T = Item>(key: Key, what: string, opts: ReadOptions = {}): Promise<T> {
  const item = await get<T>(key, opts);
  if (!item) throw notFound(what);
  return item;
}

/**
 * Items by key through BatchGetItem (100 keys a request, unprocessed keys retried with backoff):
 * a map by `keyId`. The only way the code reads several items by key.
 */
export async function getMany<T = Item>(keyList: Key[], opts: Pick<ReadOptions, 'consistent'> = {}) {
  const out = new Map<string, T>();
  const unique = [...new Map(keyList.map((k) => [keyId(k), k])).values()];
  for (let i = 0; i < unique.length; i += 100) {
    let pending: Key[] = unique.slice(i, i + 100);
    for (let attempt = 0; pending.length && attempt < 8; attempt++) {
      if (attempt) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
      const res = await ddb().send(
        new BatchGetCommand({
          RequestItems: {
            [config.tableName]: { Keys: pending, ...(opts.consistent ? { ConsistentRead: true } : {}) },
          },
        }),
      );
      for (const item of res.Responses?.[config.tableName] ?? []) out.set(keyId(item as Key), item as T);
      pending = (res.UnprocessedKeys?.[config.tableName]?.Keys ?? []) as Key[];
    }
    if (pending.length) throw new Error('Batch read left unprocessed keys');
  }
  return out;
}
