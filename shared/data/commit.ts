import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '#shared/auth/access-token.ts';
import { ApiError, conflict } from '#shared/http/errors.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { auditPut, countAudit } from './audit.ts';
import type { Item, Key } from './keys.ts';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** One item of a change; `onConflict` is what the client is told when this item's condition fails. */
export type Write = TransactItem & { onConflict?: string | ApiError };

/** The item, answering `onConflict` (a 409 message, or an error of its own) when its condition fails. */
export const orConflict = (item: TransactItem, onConflict: string | ApiError): Write => ({ ...item, onConflict });

export interface Change {
  tenantId: string | null;
  actor: Pick<Principal, 'userId' | 'email'> | null;
  entityType: string;
  entityId: string;
  action: string;
  changes: Record<string, unknown> | null;
}

export interface CommitOptions {
  now?: string;
  /** What a failed condition answers when the failing item names nothing of its own. */
  onConflict?: string | ApiError;
}

const GENERIC_CONFLICT = 'The record changed meanwhile; try again';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const reasonsOf = (err: unknown): { Code?: string }[] =>
  (err as { name?: string }).name === 'TransactionCanceledException'
    ? ((err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [])
    : [];
const asError = (answer: string | ApiError) => (answer instanceof ApiError ? answer : conflict(answer));

/**
 * The one way records are written: the change's items and its audit entry (none when `change` is
 * null: token rotations, local stand-ins) in one TransactWriteItems, retried when another
 * transaction held an item (a shared counter). A failed condition always throws: the failing item's
 * own `onConflict`, else `opts.onConflict`, else a generic 409. Nothing can ignore it.
 */
export async function commitChange(
  writes: readonly (Write | null | undefined | false)[],
  change: Change | readonly Change[] | null,
  opts: CommitOptions = {},
): Promise<void> {
  const list = writes.filter((w): w is Write => !!w);
  const items: TransactItem[] = list.map(({ onConflict: _, ...item }) => item);
  // Several changes committed at once (documents indexed together) each keep their own entry.
  const changes: readonly Change[] = change === null ? [] : 'tenantId' in change ? [change] : change;
  for (const c of changes) items.push(auditPut(c, opts.now ?? new Date().toISOString()));
  for (let attempt = 1; ; attempt++) {
    try {
      await ddb().send(new TransactWriteCommand({ TransactItems: items }));
      break;
    } catch (err) {
      const reasons = reasonsOf(err);
      const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failed >= 0) throw asError(list[failed]?.onConflict ?? opts.onConflict ?? GENERIC_CONFLICT);
      const retryable = reasons.some((r) => r.Code === 'TransactionConflict' || r.Code === 'ThrottlingError');
      if (!retryable || attempt >= 6) throw err;
      await sleep(Math.random() * 25 * 2 ** attempt);
    }
  }
  if (changes.length) await countAudit(changes.length);
}

/** A condition with its values, as `asRead` builds it (shared/data/as-read.ts). */
export interface Condition {
  condition: string;
  values: Record<string, unknown>;
}

const conditionOf = (condition?: string | Condition, values?: Record<string, unknown>) => {
  const c = typeof condition === 'string' || condition === undefined ? { condition, values } : condition;
  return {
    ...(c.condition ? { ConditionExpression: c.condition } : {}),
    ...(c.values && Object.keys(c.values).length ? { ExpressionAttributeValues: c.values } : {}),
  };
};

/** A Put that replaces whatever is at the key (under an optional condition). */
export const putItem = (
  item: Item & Key,
  condition?: string | Condition,
  values?: Record<string, unknown>,
): TransactItem => ({
  Put: { TableName: config.tableName, Item: item, ...conditionOf(condition, values) },
});

/**
 * A Put of an item whose key must be free: a record's create, or a unique value's claim (its key
 * and its owner); the transaction fails on this item when the key holds one.
 */
export const putNew = (item: Item & Key): TransactItem => putItem(item, 'attribute_not_exists(pk)');

/** A Delete (under an optional condition, `attribute_exists(pk)` to require the item). */
export const deleteItem = (
  key: Key,
  condition?: string | Condition,
  values?: Record<string, unknown>,
): TransactItem => ({
  Delete: { TableName: config.tableName, Key: key, ...conditionOf(condition, values) },
});

/** A condition on an item the change does not write (the parent still exists, a state still holds). */
export const checkItem = (
  key: Key,
  condition: string,
  values?: Record<string, unknown>,
  names?: Record<string, string>,
): TransactItem => ({
  ConditionCheck: {
    TableName: config.tableName,
    Key: key,
    ConditionExpression: condition,
    ...(values ? { ExpressionAttributeValues: values } : {}),
    ...(names ? { ExpressionAttributeNames: names } : {}),
  },
});

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
