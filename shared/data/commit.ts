import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '#shared/auth/access-token.ts';
import { ApiError, conflict, notFound } from '#shared/http/errors.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { auditPut, countAudit } from './audit.ts';
import type { Key } from './keys.ts';
import { transact, type TransactItem } from './transact.ts';

export type Item = Record<string, unknown>;

/** A strongly consistent GetItem, or 404 naming `what`. */
export async function readOr404(key: Key, what: string): Promise<Item> {
  const out = await ddb().send(new GetCommand({ TableName: config.tableName, Key: key, ConsistentRead: true }));
  if (!out.Item) throw notFound(what);
  return out.Item;
}

export interface Change {
  tenantId: string | null;
  actor: Principal | null;
  entityType: string;
  entityId: string;
  action: string;
  changes: Record<string, unknown> | null;
}

/**
 * What a failed condition answers: one message (409), a message per item index of `items` as
 * given (the first failing item with a message wins, else the generic 409), or an error of its own.
 */
export type OnConflict = string | Readonly<Record<number, string>> | ApiError;
const GENERIC_CONFLICT = 'The record changed meanwhile; try again';

/** One transaction of a change's items plus its audit entry; a failed condition answers `onConflict`. */
export async function commitChange(
  items: (TransactItem | null)[],
  change: Change,
  now = new Date().toISOString(),
  onConflict: OnConflict = GENERIC_CONFLICT,
) {
  const list = items.filter((i): i is TransactItem => i !== null);
  const outcome = await transact([
    ...list,
    auditPut(
      {
        entityType: change.entityType,
        entityId: change.entityId,
        action: change.action,
        changes: change.changes,
        actor: change.actor,
        tenantId: change.tenantId,
      },
      now,
    ),
  ]);
  if (!outcome.ok) {
    if (onConflict instanceof ApiError) throw onConflict;
    if (typeof onConflict === 'string') throw conflict(onConflict);
    const indexOf = new Map(items.map((item, i) => [item, i]));
    const first = outcome.failedAt.map((i) => indexOf.get(list[i]!)).find((i) => i !== undefined && onConflict[i]);
    throw conflict(first !== undefined ? onConflict[first]! : GENERIC_CONFLICT);
  }
  await countAudit(1);
}

/** An Update transaction item from SET values, ADD counters and REMOVE names, under a condition. */
export function updateItem(
  key: Key,
  set: Record<string, unknown>,
  opts: {
    remove?: string[];
    add?: Record<string, number | Set<string>>;
    condition?: string;
    values?: Record<string, unknown>;
    names?: Record<string, string>;
  } = {},
): TransactItem {
  const names: Record<string, string> = { ...opts.names };
  const values: Record<string, unknown> = { ...opts.values };
  // A dotted name is a path into a map attribute (`versionIndex.{id}`).
  const sets = Object.entries(set).map(([k, v], i) => {
    const path = k.split('.').map((part, j) => {
      names[`#s${i}_${j}`] = part;
      return `#s${i}_${j}`;
    });
    values[`:s${i}`] = v;
    return `${path.join('.')} = :s${i}`;
  });
  const adds = Object.entries(opts.add ?? {}).map(([k, v], i) => {
    names[`#a${i}`] = k;
    values[`:a${i}`] = v;
    return `#a${i} :a${i}`;
  });
  const removes = (opts.remove ?? []).map((k, i) => {
    names[`#r${i}`] = k;
    return `#r${i}`;
  });
  const expression = [
    sets.length ? `SET ${sets.join(', ')}` : '',
    adds.length ? `ADD ${adds.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return {
    Update: {
      TableName: config.tableName,
      Key: key,
      UpdateExpression: expression,
      ExpressionAttributeNames: names,
      ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
      ...(opts.condition ? { ConditionExpression: opts.condition } : {}),
    },
  };
}
