import { beforeAll, describe, expect, it } from 'vitest';
import { gatewayKeys, monthOf } from '#areas/llm-gateway/records.ts';
import { usedWithOpenLeases } from '#areas/llm-gateway/reservations.ts';
import { get } from '#shared/data/read.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { newKey, setAllowance, sweepAfterLeasesExpire } from '#test/support/gateway.ts';
import {
  admitOnly,
  callThrough,
  count,
  gatewayInstance,
  OUT,
  PROMPT,
  WORST,
  type Gateway,
} from '#test/support/gateway-instances.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * The month allowance and a key's budget admitted from leases (leases.ts): three gateway instances
 * (separate module state, one table) never pass either limit together; a lowered allowance counts
 * from the next call on every instance; a lease an instance abandons mid-call is settled by the
 * sweep to exactly what its calls recorded; and room one instance holds unused comes back to the
 * others when that instance's next call retires its lease.
 */
// local-chat: $1 per million input tokens, $2 per million output tokens, in billionths of a dollar.
const WORST_NANO = PROMPT * 1_000 + OUT * 2_000;

async function tenantWithKey(allowance: number, key: Record<string, unknown> = {}) {
  const tenant = await newTenant({ planType: 2 });
  await setAllowance(tenant, allowance);
  const owner = await tokenFor({ tenantId: tenant });
  return { tenant, key: await newKey(owner, key), other: await newKey(owner) };
}

/** Every test's tenant and key, made through the routes before any instance exists (see rate leases). */
const MADE = {
  burst50: () => tenantWithKey(30 * WORST + WORST - 1),
  burst200: () => tenantWithKey(30 * WORST + WORST - 1),
  budget: () => tenantWithKey(100_000_000, { maxBudgetUsd: (31 * WORST_NANO - 1) / 1e9 }),
  lowered: () => tenantWithKey(100 * WORST),
  abandoned: () => tenantWithKey(60 * WORST),
  starved: () => tenantWithKey(100 * WORST),
  refusedByBudget: () => tenantWithKey(3 * WORST, { maxBudgetUsd: 0 }),
};
let made: Record<keyof typeof MADE, Awaited<ReturnType<typeof tenantWithKey>>>;
let gateways: Gateway[];
beforeAll(async () => {
  const entries = await Promise.all(Object.entries(MADE).map(async ([name, make]) => [name, await make()]));
  made = Object.fromEntries(entries);
  gateways = [await gatewayInstance(), await gatewayInstance(), await gatewayInstance()];
});

const burst = (n: number, tenantId: string, keyId: string, now = Date.now()) =>
  Promise.all(Array.from({ length: n }, (_, i) => callThrough(gateways[i % 3]!, tenantId, keyId, now)));

/** The month's allowance item as stored, and what its open leases' calls recorded. */
async function month(tenantId: string) {
  const item = await get<Record<string, unknown>>(gatewayKeys.allowance(tenantId, monthOf(new Date().toISOString())), {
    consistent: true,
  });
  return {
    committed: Number(item?.committedTokens ?? 0),
    used: (await usedWithOpenLeases(item, 'Tokens')).used,
  };
}

/**
 * Admitted by a burst over the three instances: never more than the limit, and fewer by at most
 * what two of them may hold unused at its end (each lease within an eighth of the limit).
 */
function admittedWithin(codes: string[], limit: number, refusal: string) {
  const ok = count(codes, 'ok');
  expect(ok, codes.join(' ')).toBeLessThanOrEqual(limit);
  expect(ok, codes.join(' ')).toBeGreaterThanOrEqual(limit - 2 * Math.ceil(limit / 8));
  expect(count(codes, refusal), codes.join(' ')).toBe(codes.length - ok);
  return ok;
}

describe('bursts over three instances', () => {
  it.each([50, 200] as const)(
    '%i parallel calls against an allowance of 30 worst cases admit at most 30',
    async (n) => {
      const { tenant, key } = made[n === 50 ? 'burst50' : 'burst200'];
      const ok = admittedWithin(await burst(n, tenant, key.id), 30, 'TOKEN_LIMIT_REACHED');
      const stored = await month(tenant);
      expect(stored.used).toBe(ok * WORST);
      expect(stored.committed).toBeLessThanOrEqual(31 * WORST - 1);
    },
  );

  it('120 parallel calls against a budget of 30 worst cases admit at most 30, and the spend is theirs', async () => {
    const { tenant, key } = made.budget;
    const ok = admittedWithin(await burst(120, tenant, key.id), 30, 'BUDGET_EXCEEDED');
    const stored = await get<Record<string, unknown>>(gatewayKeys.key(tenant, key.id), { consistent: true });
    expect(Number(stored?.committedNano)).toBeLessThanOrEqual(31 * WORST_NANO - 1);
    expect((await usedWithOpenLeases(stored, 'Nano')).used).toBe(ok * WORST_NANO);
  });
});

describe('a call refused by its key budget', () => {
  it("takes nothing from the month's allowance it was leased from beside it", async () => {
    const { tenant, key, other } = made.refusedByBudget;
    for (let i = 0; i < 10; i++) expect(await callThrough(gateways[0]!, tenant, key.id)).toBe('BUDGET_EXCEEDED');
    for (let i = 0; i < 3; i++) expect(await callThrough(gateways[0]!, tenant, other.id)).toBe('ok');
    expect(await callThrough(gateways[0]!, tenant, other.id)).toBe('TOKEN_LIMIT_REACHED');
  });
});

describe('a lowered allowance', () => {
  it('refuses the next call on each instance, their leases settled; raised by one call, it admits one', async () => {
    const { tenant, key } = made.lowered;
    for (let i = 0; i < 12; i++) expect(await callThrough(gateways[i % 3]!, tenant, key.id)).toBe('ok');
    await setAllowance(tenant, 12 * WORST);
    for (const g of gateways) expect(await callThrough(g, tenant, key.id)).toBe('TOKEN_LIMIT_REACHED');
    // Each refused call settled its instance's lease taken under the old allowance: nothing is held.
    expect(await month(tenant)).toEqual({ committed: 12 * WORST, used: 12 * WORST });
    await setAllowance(tenant, 13 * WORST);
    expect(await callThrough(gateways[1]!, tenant, key.id)).toBe('ok');
    for (const g of gateways) expect(await callThrough(g, tenant, key.id)).toBe('TOKEN_LIMIT_REACHED');
  });
});

describe('a lease its instance abandoned mid-call', () => {
  it('never lets the others pass the allowance, and the sweep settles it to what its calls recorded', async () => {
    const { tenant, key } = made.abandoned;
    // A busy instance's leases grow; then two of its calls are admitted and it dies before they end.
    const busy = await gatewayInstance();
    for (let i = 0; i < 10; i++) expect(await callThrough(busy, tenant, key.id)).toBe('ok');
    await admitOnly(busy, tenant, key.id);
    await admitOnly(busy, tenant, key.id);
    const held = await month(tenant);
    expect(held.used).toBe(10 * WORST);
    expect(held.committed).toBeGreaterThanOrEqual(12 * WORST);
    // The others get what it did not lease, never more.
    const meanwhile = count(await burst(90, tenant, key.id), 'ok');
    expect(meanwhile * WORST).toBeLessThanOrEqual(60 * WORST - held.committed);
    // Past every lease's expiry, each is settled to its recorded use: the headroom is exact again.
    await sweepAfterLeasesExpire();
    expect(await month(tenant)).toEqual({ committed: (10 + meanwhile) * WORST, used: (10 + meanwhile) * WORST });
    // A fresh instance, one call at a time, gets exactly what is left.
    const fresh = await gatewayInstance();
    const rest: string[] = [];
    for (let i = 0; i < 60; i++) rest.push(await callThrough(fresh, tenant, key.id));
    expect(count(rest, 'ok')).toBe(60 - 10 - meanwhile);
  });
});

describe('room an instance holds unused', () => {
  it("comes back to another instance once the first's next call, past its lease's use, retires it", async () => {
    const { tenant, key } = made.starved;
    const now = Date.now();
    const [a, b] = gateways;
    // A's leases grow one call at a time; it keeps part of its last lease unused.
    for (let i = 0; i < 20; i++) expect(await callThrough(a!, tenant, key.id, now)).toBe('ok');
    const idle = (await month(tenant)).committed - 20 * WORST;
    expect(idle).toBeGreaterThan(0);
    // The bound the decisions page states: a lease within a quarter of what was left after it.
    expect(idle).toBeLessThanOrEqual((100 * WORST - 20 * WORST) / 4);
    // B takes the rest, and is refused while A's room sits unused.
    const first: string[] = [];
    for (let i = 0; i < 100; i++) first.push(await callThrough(b!, tenant, key.id, now));
    const taken = count(first, 'ok');
    expect(taken).toBeLessThan(80);
    expect(first.at(-1)).toBe('TOKEN_LIMIT_REACHED');
    // A calls again after its lease's use: the old lease is settled with that call's writes.
    const later = now + 31_000;
    expect(await callThrough(a!, tenant, key.id, later)).toBe('ok');
    const after: string[] = [];
    for (let i = 0; i < 100; i++) after.push(await callThrough(b!, tenant, key.id, later));
    // Everything is used but what A's fresh lease (one call, the limit being near) may hold.
    expect(20 + taken + 1 + count(after, 'ok')).toBeGreaterThanOrEqual(99);
    expect(20 + taken + 1 + count(after, 'ok')).toBeLessThanOrEqual(100);
  });
});
