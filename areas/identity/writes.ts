import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactItem } from '#shared/data/commit.ts';
import type { ApiError } from '#shared/http/errors.ts';
import { ddb } from '#shared/platform/aws.ts';
import type { Item } from '#shared/data/keys.ts';

export type SingleWrite<T = Item> = { written: true; attributes: T | undefined } | { written: false };

const conditionFailed = (err: unknown) => (err as { name?: string }).name === 'ConditionalCheckFailedException';

/**
 * One operational item written on its own, without an audit entry: a one-time code being stored or
 * spent, a cooldown, a device token, an OAuth flow, a token family's revocation, a password rehash.
 * Records go through `commitChange`. The item is built like a transaction's (`putItem`,
 * `updateItem`, `deleteItem`); the answer says whether its condition held, and the caller must
 * decide what a failed one means (it never passes unseen). `returnNew` asks an update for the
 * item as written.
 */
export async function writeOne<T = Item>(
  item: TransactItem,
  opts: { returnNew?: boolean } = {},
): Promise<SingleWrite<T>> {
  try {
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
  } catch (err) {
    if (conditionFailed(err)) return { written: false };
    throw err;
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
