import { describe, expect, it } from 'vitest';
import { CAP_HOLD, holdCaps } from '#areas/conversations/cap-holds.ts';
import { keys } from '#shared/data/keys.ts';
import { get } from '#shared/data/read.ts';
import { losingFirstAnswerOf } from '#test/support/lost-answers.ts';

/**
 * A visitor cap's hold is a conditional write the shared client retries when its answer is lost:
 * held twice, a turn would leave one hold behind, and the counter would look busy to every later
 * turn until they wait out their 409.
 */
describe('a cap hold retried after its answer was lost', () => {
  it('holds once: given back, the counter holds nothing and runs nothing', async () => {
    const key = keys.tenantItem(crypto.randomUUID(), 'VISITOR_SPEND', 'retried');
    let holds: Awaited<ReturnType<typeof holdCaps>> | undefined;
    await losingFirstAnswerOf('VISITOR_SPEND', 'SET #h = :w', async () => {
      holds = await holdCaps([{ key, cap: 10 * CAP_HOLD.turnTokens, kind: 'dailyTokens' }]);
    });
    expect(holds).not.toHaveProperty('reached');
    await (holds as { release: () => Promise<void> }).release();
    expect(await get(key)).toMatchObject({ committed: 0, running: 0 });
  });
});
