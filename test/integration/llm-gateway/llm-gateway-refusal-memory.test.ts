import { describe, expect, it } from 'vitest';
import { admit, finish } from '#areas/llm-gateway/admission.ts';
import { REFUSAL_MEMORY_MS } from '#areas/llm-gateway/refusal-memory.ts';
import { inOneRateWindow, newTenant } from '#test/support/fixtures.ts';
import { newKey, requestsDuring, setAllowance } from '#test/support/gateway.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * A caller refused for a limit is refused again for a moment without a write (a failed conditional
 * write still costs a write unit), and never admitted by that memory: a change of its standing, a
 * smaller call or the second's end each go back to the stored limits.
 */
// local-chat: $1 per million input tokens, $2 per million output tokens.
const usd = (prompt: number, output: number) => (prompt + 2 * output) / 1_000_000;

async function keyWithBudget(maxBudgetUsd: number, more: Record<string, unknown> = {}) {
  const tenant = await newTenant({ planType: 2 });
  await setAllowance(tenant, 10_000_000);
  const owner = await tokenFor({ tenantId: tenant });
  return { tenant, key: await newKey(owner, { maxBudgetUsd, ...more }) };
}

const input = (tenantId: string, keyId: string, maxOutput: number, now?: number) => ({
  tenantId,
  caller: { kind: 'key' as const, keyId },
  requestId: crypto.randomUUID(),
  model: 'local-chat',
  kind: 'chat' as const,
  promptTokens: 10,
  maxOutput,
  ...(now ? { now } : {}),
});

const refusal = (run: Promise<unknown>) =>
  run.then(
    () => null,
    (e: { code?: string }) => e.code,
  );

describe('a caller refused by its budget', () => {
  it('is refused again within the second after one consistent read and no write', async () => {
    const { tenant, key } = await keyWithBudget(usd(10, 50));
    expect(await refusal(admit(input(tenant, key.id, 90)))).toBe('BUDGET_EXCEEDED');
    let code: string | null | undefined;
    const sent = await requestsDuring(async () => {
      code = await refusal(admit(input(tenant, key.id, 90)));
    });
    expect(code).toBe('BUDGET_EXCEEDED');
    expect(sent).toEqual(['BatchGetItemCommand']);
  });

  it('has its next smaller call, which fits, admitted', async () => {
    const { tenant, key } = await keyWithBudget(usd(10, 50));
    expect(await refusal(admit(input(tenant, key.id, 90)))).toBe('BUDGET_EXCEEDED');
    const smaller = await admit(input(tenant, key.id, 40));
    await finish(smaller, { model: smaller.chain[0]!, promptTokens: 10, completionTokens: 40 });
  });

  it('tries its stored budget again after the second, and writes for it', async () => {
    // Room for one and a half worst cases: with one call in flight, the next lacks room, and
    // finding out takes a lease write that the limit refuses.
    const { tenant, key } = await keyWithBudget(1.5 * usd(10, 90));
    const at = Date.now();
    await admit(input(tenant, key.id, 90, at));
    expect(await refusal(admit(input(tenant, key.id, 90, at)))).toBe('BUDGET_EXCEEDED');
    const within = await requestsDuring(async () => {
      expect(await refusal(admit(input(tenant, key.id, 90, at + 10)))).toBe('BUDGET_EXCEEDED');
    });
    expect(within).toEqual(['BatchGetItemCommand']);
    let code: string | null | undefined;
    const sent = await requestsDuring(async () => {
      code = await refusal(admit(input(tenant, key.id, 90, at + REFUSAL_MEMORY_MS)));
    });
    expect(code).toBe('BUDGET_EXCEEDED');
    expect(sent).toContain('UpdateItemCommand');
  });
});

describe("a caller refused by its tenant's month allowance", () => {
  it('is admitted on its very next call once the allowance is raised', async () => {
    const { tenant, key } = await keyWithBudget(1);
    await setAllowance(tenant, 99);
    expect(await refusal(admit(input(tenant, key.id, 90)))).toBe('TOKEN_LIMIT_REACHED');
    expect(await refusal(admit(input(tenant, key.id, 90)))).toBe('TOKEN_LIMIT_REACHED');
    await setAllowance(tenant, 100);
    const admitted = await admit(input(tenant, key.id, 90));
    await finish(admitted, { model: admitted.chain[0]!, promptTokens: 10, completionTokens: 90 });
  });
});

describe('a key with rpm refused by its budget', () => {
  it('still counts each call against rpm first, so the next refusal is the rate limit', async () => {
    const { tenant, key } = await keyWithBudget(usd(10, 50), { rpmLimit: 1 });
    const refusals = await inOneRateWindow(async () => [
      await refusal(admit(input(tenant, key.id, 90))),
      await refusal(admit(input(tenant, key.id, 90))),
    ]);
    expect(refusals).toEqual(['BUDGET_EXCEEDED', 'RATE_LIMITED']);
    // A rate refusal is remembered: the next one costs the read alone.
    const sent = await requestsDuring(() => refusal(admit(input(tenant, key.id, 90))));
    expect(sent).toEqual(['BatchGetItemCommand']);
  });
});
