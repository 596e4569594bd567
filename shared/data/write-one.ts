import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ApiError, conflict } from '#shared/http/errors.ts';
import { ddb } from '#shared/platform/aws.ts';
import type { TransactItem, Write } from './commit.ts';
import { isConditionFailure } from './condition-failure.ts';
import type { Item } from './keys.ts';

export type SingleWrite<T = Item> = { written: true; attributes: T | undefined } | { written: false };

/**
 * One item written on its own, without an audit entry (the one way the code does it): a one-time
 * code being stored or spent, a cooldown, a token family's revocation, a document's progress, a
 * delivery's attempt, derived counts. A change that needs its audit entry or more items goes
 * through `commitChange`; one item needs no transaction (which costs twice its write units). The
 * item is built like a transaction's (`putItem`, `updateItem`, `deleteItem`); the answer says
 * whether its condition held, and the caller must decide what a failed one means (it never passes
 * unseen). `returnNew` asks an update for the item as written.
 */
export async function writeOne<T = Item>(
  item: TransactItem,
  opts: { returnNew?: boolean } = {},
): Promise<SingleWrite<T>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once<T>(item, opts);
    } catch (err) {
      if (isConditionFailure(err)) return { written: false };
      // A transaction holding the item meanwhile (a shared counter): tried again, as commitChange does.
      if ((err as { name?: string }).name !== 'TransactionConflictException' || attempt >= 6) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 25 * 2 ** attempt));
    }
  }
}

async function once<T>(item: TransactItem, opts: { returnNew?: boolean }): Promise<SingleWrite<T>> {
  if (item.Put) {
    await ddb().send(new PutCommand(item.Put));
    return { written: true, attributes: undefined };
  }
  if (item.Update) {
    const out = await ddb().send(
      new UpdateCommand({ ...item.Update, ...(opts.returnNew ? { ReturnValues: 'ALL_NEW' } : {}) }),
    );
    return { written: true, attributes: out.Attributes as T | undefined };
  }
  if (item.Delete) {
    await ddb().send(new DeleteCommand(item.Delete));
    return { written: true, attributes: undefined };
  }
  throw new Error('writeOne takes a Put, an Update or a Delete');
}

/**
 * A commit whose listed conflicts the caller answers itself (a lost race to recover from, a state
 * already reached): resolves to the conflict that stopped it, or null when it committed. Each
 * conflict is the very error given to `orConflict`, so only that item's failure is caught; any other
 * failure still throws.
 */
export async function committedUnless(commit: Promise<void>, ...handled: ApiError[]): Promise<ApiError | null> {
  try {
    await commit;
    return null;
  } catch (err) {
    if (handled.includes(err as ApiError)) return err as ApiError;
    throw err;
  }
}

/**
 * One item written on its own whose failed condition is an error, as in a transaction: the write's
 * own `onConflict` (`orConflict`), else a generic 409.
 */
export async function writeItem(write: Write): Promise<void> {
  const { onConflict, ...item } = write;
  const out = await writeOne(item);
  if (out.written) return;
  const answer = onConflict ?? 'The record changed meanwhile; try again';
  throw answer instanceof ApiError ? answer : conflict(answer);
}
