import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/platform/aws.ts';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

interface CancellationReason {
  Code?: string;
}

export const cancellationReasons = (err: unknown): CancellationReason[] =>
  (err as { name?: string }).name === 'TransactionCanceledException'
    ? ((err as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [])
    : [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * TransactWriteItems with retries on TransactionConflict (another transaction held one of the
 * items, typically a shared counter). Condition failures are returned to the caller to map:
 * `failedAt` lists the indexes of the items whose condition failed.
 */
export async function transact(
  items: TransactItem[],
  attempts = 6,
): Promise<{ ok: true } | { ok: false; failedAt: number[] }> {
  for (let attempt = 1; ; attempt++) {
    try {
      await ddb().send(new TransactWriteCommand({ TransactItems: items }));
      return { ok: true };
    } catch (err) {
      const reasons = cancellationReasons(err);
      const failedAt = reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
      if (failedAt.length) return { ok: false, failedAt };
      const retryable = reasons.some((r) => r.Code === 'TransactionConflict' || r.Code === 'ThrottlingError');
      if (!retryable || attempt >= attempts) throw err;
      await sleep(Math.random() * 25 * 2 ** attempt);
    }
  }
}
