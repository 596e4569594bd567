import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { notFound } from '#shared/http/errors.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import type { Key } from './keys.ts';

export type Item = Record<string, unknown>;

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
