import { UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { logger } from '#shared/runtime/logger.ts';
import { keys, type Item } from './keys.ts';
import { queryItems } from './query.ts';
import type { TransactItem } from './commit.ts';
import { get } from './read.ts';

/** A collection's counter, moved in the transaction that creates or deletes one of its records. */
export function bumpCounter(collectionPk: string, by: 1 | -1): TransactItem {
  return {
    Update: {
      TableName: config.tableName,
      Key: keys.counter(collectionPk),
      UpdateExpression: 'ADD #count :by',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':by': by },
    },
  };
}

/**
 * Bumps a platform-wide counter after a transaction has committed. Best effort: the change is
 * already saved, so a throttled bump must not turn it into an error the client would retry
 * (creating the record twice); the counter may then run one short, which only a list's
 * `totalCount` shows.
 */
export async function bumpCounterAfterCommit(collectionPk: string, by: number): Promise<void> {
  if (by <= 0) return;
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.counter(collectionPk),
        UpdateExpression: 'ADD #count :by',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':by': by },
      }),
    );
  } catch (error) {
    logger.warn('counter not bumped after commit', { collection: collectionPk, by, error: error as Error });
  }
}

export async function countOf(collectionPk: string): Promise<number> {
  const counter = await get<{ count?: number }>(keys.counter(collectionPk));
  return Math.max(0, Number(counter?.count ?? 0));
}

export interface ListOptions {
  page: number;
  pageSize: number;
  /** Case-insensitive substring matched against the item's `searchText` attribute. */
  search?: string;
  /** Extra equality filters on item attributes. */
  where?: Record<string, string | number | boolean | null>;
  /** The ordering index: gsi1 (default) or gsi2 for a second listing of the same records. */
  index?: 'gsi1' | 'gsi2';
  /** Only sort keys between these (inclusive): a date range on the creation time the sort key begins with. */
  sortRange?: { from: string; to: string };
}

/**
 * A page of a collection, newest first, from the gsi1 ordering index. Unfiltered: the count comes
 * from the maintained counter (one GetItem) and the page from one Query that reads only up to the
 * page's end. Filtered: the Query reads the collection through a filter to count the matches.
 */
export async function listNewestFirst<T = Item>(
  collectionPk: string,
  opts: ListOptions,
): Promise<{ items: T[]; totalCount: number }> {
  const filters: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': collectionPk };
  if (opts.search) {
    filters.push('contains(#searchText, :search)');
    names['#searchText'] = 'searchText';
    values[':search'] = opts.search.toLowerCase();
  }
  for (const [i, [field, value]] of Object.entries(opts.where ?? {}).entries()) {
    if (value === undefined) continue;
    filters.push(value === null ? `attribute_type(#w${i}, :null${i})` : `#w${i} = :w${i}`);
    names[`#w${i}`] = field;
    if (value === null) values[`:null${i}`] = 'NULL';
    else values[`:w${i}`] = value;
  }
  const filtered = filters.length > 0 || !!opts.sortRange;
  if (opts.sortRange) Object.assign(values, { ':from': opts.sortRange.from, ':to': opts.sortRange.to });
  const start = (opts.page - 1) * opts.pageSize;
  const end = start + opts.pageSize;
  const index = opts.index ?? 'gsi1';
  const base: QueryCommandInput = {
    TableName: config.tableName,
    IndexName: index,
    KeyConditionExpression: `${index}pk = :pk${opts.sortRange ? ` AND ${index}sk BETWEEN :from AND :to` : ''}`,
    ExpressionAttributeValues: values,
    ...(filters.length ? { FilterExpression: filters.join(' AND '), ExpressionAttributeNames: names } : {}),
    ScanIndexForward: false,
  };

  if (!filtered) {
    const [totalCount, items] = await Promise.all([countOf(collectionPk), queryItems<T>(base, end)]);
    return { items: items.slice(start, end), totalCount };
  }
  const all = await queryItems<T>(base);
  return { items: all.slice(start, end), totalCount: all.length };
}
