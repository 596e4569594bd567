import { expect } from 'vitest';
import { ddb } from '#shared/platform/aws.ts';

/**
 * Lets the first write to `item` (text in its key, such as an item kind) whose update expression contains
 * `marker` reach DynamoDB, then loses its answer as a reset connection would: the client's retry
 * sends the same write again.
 */
export async function losingFirstAnswerOf(item: string, marker: string, run: () => Promise<unknown>) {
  let lost = 0;
  const name = `lose-${crypto.randomUUID()}`;
  ddb().middlewareStack.add(
    (next) => async (args) => {
      const out = await next(args);
      const { UpdateExpression, Key } = args.input as { UpdateExpression?: string; Key?: unknown };
      if (lost === 0 && String(UpdateExpression).includes(marker) && JSON.stringify(Key).includes(item)) {
        lost++;
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      }
      return out;
    },
    { step: 'deserialize', name },
  );
  try {
    await run();
  } finally {
    ddb().middlewareStack.remove(name);
  }
  expect(lost, `a write to ${item} with ${marker}`).toBe(1);
}
