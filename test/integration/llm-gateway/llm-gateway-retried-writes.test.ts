import { describe, expect, it } from 'vitest';
import { admit, finish } from '#areas/llm-gateway/admission.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { ip, newKey, setAllowance, sweepAfterLeasesExpire } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { losingFirstAnswerOf } from '#test/support/lost-answers.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * The shared client retries a write whose answer was lost (up to five attempts). A lease's hold
 * and its settle (by its instance or by the sweep) each reach DynamoDB once or twice then, and must
 * count once.
 */

type Item = 'LLM_ALLOWANCE' | 'GATEWAY_KEY';

// local-chat: $1 per million input tokens, $2 per million output tokens.
const WORST_USD = (10 * 1 + 90 * 2) / 1_000_000;
const USED_USD = (10 * 1 + 5 * 2) / 1_000_000;

/** A tenant with room for many calls, and a key whose budget fits exactly two worst cases. */
async function tenantWithKey() {
  const tenant = await newTenant({ planType: 2 });
  await setAllowance(tenant, 1_000_000);
  const owner = await tokenFor({ tenantId: tenant });
  return { tenant, owner, key: await newKey(owner, { maxBudgetUsd: 2 * WORST_USD }) };
}

const usageOf = async (owner: string) =>
  (await invoke('GET', '/api/llm-gateway/usage', { token: owner, ip: ip() })).json.result;
const keyListed = async (owner: string) =>
  (await invoke('GET', '/api/llm-gateway/keys', { token: owner, ip: ip() })).json.result.items[0];

const input = (tenantId: string, keyId: string) => ({
  tenantId,
  caller: { kind: 'key' as const, keyId },
  requestId: crypto.randomUUID(),
  model: 'local-chat',
  kind: 'chat' as const,
  promptTokens: 10,
  maxOutput: 90,
});
const used = { promptTokens: 10, completionTokens: 5 };

/**
 * The month counts the one call's use; the key's spend is that use, and its budget still has room
 * for one more worst case (a second hold left behind would leave none); once the leases are settled,
 * nothing stays held and the use is the same.
 */
async function countedOnce(tenant: string, owner: string, keyId: string) {
  expect((await usageOf(owner)).tokensUsed).toBe(15);
  expect((await keyListed(owner)).spendUsd).toBeCloseTo(USED_USD, 12);
  const next = await admit(input(tenant, keyId));
  await finish(next, { model: next.chain[0]!, ...used });
  await sweepAfterLeasesExpire();
  expect(await usageOf(owner)).toMatchObject({ tokensUsed: 30, tokensReserved: 0 });
  expect((await keyListed(owner)).spendUsd).toBeCloseTo(2 * USED_USD, 12);
}

/** A call admitted and answered from a fresh lease, which a later call's lease then retires. */
async function answeredThenRetired(
  tenant: string,
  keyId: string,
  run: (settle: () => Promise<unknown>) => Promise<void>,
) {
  const admitted = await admit(input(tenant, keyId));
  await finish(admitted, { model: admitted.chain[0]!, ...used });
  // The next call lacks room in the key's lease (its budget leaves room for one worst case only
  // beside it), so its lease is the fresh one and the first, retired, is settled with its writes.
  const next = await admit(input(tenant, keyId));
  await run(() => finish(next, { model: next.chain[0]!, ...used }));
}

describe.each<Item>(['LLM_ALLOWANCE', 'GATEWAY_KEY'])(
  'a write to the %s item retried after its answer was lost',
  (item) => {
    it('leases once', async () => {
      const { tenant, owner, key } = await tenantWithKey();
      let admitted: Awaited<ReturnType<typeof admit>> | undefined;
      await losingFirstAnswerOf(item, 'SET #r = :r', async () => {
        admitted = await admit(input(tenant, key.id));
      });
      await finish(admitted!, { model: admitted!.chain[0]!, ...used });
      await countedOnce(tenant, owner, key.id);
    });

    it('is settled once by the sweep', async () => {
      const { tenant, owner, key } = await tenantWithKey();
      const admitted = await admit(input(tenant, key.id));
      await finish(admitted, { model: admitted.chain[0]!, ...used });
      await losingFirstAnswerOf(item, ':delta', sweepAfterLeasesExpire);
      expect(await usageOf(owner)).toMatchObject({ tokensUsed: 15, tokensReserved: 0 });
      expect((await keyListed(owner)).spendUsd).toBeCloseTo(USED_USD, 12);
    });
  },
);

describe('a retired lease settled by its instance, its answer lost', () => {
  it('counts once', async () => {
    const { tenant, owner, key } = await tenantWithKey();
    await answeredThenRetired(tenant, key.id, (settle) => losingFirstAnswerOf('GATEWAY_KEY', ':delta', settle));
    await sweepAfterLeasesExpire();
    expect((await keyListed(owner)).spendUsd).toBeCloseTo(2 * USED_USD, 12);
    expect(await usageOf(owner)).toMatchObject({ tokensUsed: 30, tokensReserved: 0 });
  });
});
