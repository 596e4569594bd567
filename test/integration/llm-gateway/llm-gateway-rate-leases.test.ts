import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import * as home from '#areas/llm-gateway/admission.ts';
import { gatewayKeys } from '#areas/llm-gateway/records.ts';
import { updateItem } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { inOneRateWindow, newTenant } from '#test/support/fixtures.ts';
import { newKey, setAllowance, setTenantStatus } from '#test/support/gateway.ts';
import { callThrough, count, gatewayInstance, WORST, type Gateway } from '#test/support/gateway-instances.ts';
import { losingFirstAnswerOf } from '#test/support/lost-answers.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * rpm and tpm admitted from slices of the minute's window that each instance leases (rates.ts):
 * three gateway instances (separate module state, one table) never pass a limit together, a
 * changed limit, a revocation or a suspension counts from the next call on every instance, and a
 * slice an instance leaves behind lapses with its window.
 */
const WINDOW_MS = 60_000;

async function tenantWithKey(limits: { rpmLimit?: number; tpmLimit?: number }) {
  const tenant = await newTenant({ planType: 2 });
  await setAllowance(tenant, 100_000_000);
  const owner = await tokenFor({ tenantId: tenant });
  return { tenant, key: await newKey(owner, limits) };
}

/**
 * Every test's key, made through the route before any instance exists: an instance's module graph
 * of its own is made by resetting the registry, and the routes' would be reset with it.
 */
const KEYS = {
  burst50: { rpmLimit: 40 },
  burst200: { rpmLimit: 40 },
  tpm: { tpmLimit: 31 * WORST - 1 },
  settled: { tpmLimit: 20 * WORST },
  lowered: { rpmLimit: 100 },
  revoked: { rpmLimit: 100 },
  leftBehind: { rpmLimit: 40 },
  leasedOnce: { rpmLimit: 5 },
  givenBackOnce: { rpmLimit: 100 },
};
let made: Record<keyof typeof KEYS, Awaited<ReturnType<typeof tenantWithKey>>>;
let gateways: Gateway[];
beforeAll(async () => {
  const entries = await Promise.all(Object.entries(KEYS).map(async ([name, l]) => [name, await tenantWithKey(l)]));
  made = Object.fromEntries(entries);
  gateways = [await gatewayInstance(), await gatewayInstance(), await gatewayInstance()];
});

const windowOf = async (keyId: string, now: number) =>
  (
    await ddb().send(
      new GetCommand({
        TableName: config.tableName,
        Key: keys.rateLimit('gk-rate', keyId, Math.floor(now / WINDOW_MS) * WINDOW_MS),
        ConsistentRead: true,
      }),
    )
  ).Item ?? {};

const burst = (n: number, tenantId: string, keyId: string, now: number, used = WORST) =>
  Promise.all(Array.from({ length: n }, (_, i) => callThrough(gateways[i % 3]!, tenantId, keyId, now, used)));
/**
 * Admitted by a burst over the three instances: never more than the limit, and fewer by at most
 * what two of them may hold unused at its end (each slice within an eighth of the limit).
 */
function admittedWithin(codes: string[], limit: number, slice: number) {
  const ok = count(codes, 'ok');
  expect(ok, codes.join(' ')).toBeLessThanOrEqual(limit);
  expect(ok, codes.join(' ')).toBeGreaterThanOrEqual(limit - 2 * slice);
  expect(count(codes, 'RATE_LIMITED')).toBe(codes.length - ok);
}

/** The key's limits or revocation set directly, as its routes store them. */
async function setKeyFields(tenantId: string, keyId: string, fields: Record<string, unknown>) {
  await ddb().send(new UpdateCommand(updateItem(gatewayKeys.key(tenantId, keyId), fields).Update!));
}

describe('bursts over three instances', () => {
  it.each([50, 200] as const)('%i parallel calls against rpm 40 admit at most 40', async (n) => {
    const { tenant, key } = made[n === 50 ? 'burst50' : 'burst200'];
    const now = Date.now();
    const codes = await burst(n, tenant, key.id, now);
    admittedWithin(codes, 40, 40 / 8);
    expect(Number((await windowOf(key.id, now)).requests)).toBeLessThanOrEqual(40);
  });

  it('120 parallel calls against a tpm of 30 worst cases and one token less admit at most 30', async () => {
    const { tenant, key } = made.tpm;
    const now = Date.now();
    const codes = await burst(120, tenant, key.id, now);
    admittedWithin(codes, 30, Math.floor(30 / 8));
    expect(Number((await windowOf(key.id, now)).tokens)).toBeLessThanOrEqual(31 * WORST - 1);
  });

  it("calls that use less than their worst case leave room in their instance's slice", async () => {
    const { tenant, key } = made.settled;
    const now = Date.now();
    // Each uses a tenth of its worst case: sequentially, one instance admits far more than 20.
    const codes: string[] = [];
    for (let i = 0; i < 60; i++) codes.push(await callThrough(gateways[0]!, tenant, key.id, now, WORST / 10));
    expect(count(codes, 'ok')).toBe(60);
    expect(Number((await windowOf(key.id, now)).tokens)).toBeLessThanOrEqual(20 * WORST);
  });
});

describe('a change counts from the next call on every instance', () => {
  it('a lowered rpm refuses the next call on each instance, their unused slices given back', async () => {
    const { tenant, key } = made.lowered;
    await inOneRateWindow(async () => {
      const now = Date.now();
      for (let i = 0; i < 12; i++) expect(await callThrough(gateways[i % 3]!, tenant, key.id, now)).toBe('ok');
      await setKeyFields(tenant, key.id, { rpmLimit: 12 });
      for (const g of gateways) expect(await callThrough(g, tenant, key.id, now)).toBe('RATE_LIMITED');
      // Only the twelve calls are left counted in the window.
      expect(Number((await windowOf(key.id, now)).requests)).toBe(12);
      await setKeyFields(tenant, key.id, { rpmLimit: 13 });
      expect(await callThrough(gateways[1]!, tenant, key.id, now)).toBe('ok');
      for (const g of gateways) expect(await callThrough(g, tenant, key.id, now)).toBe('RATE_LIMITED');
    });
  });

  it('a revocation and a suspension refuse the next call on each instance', async () => {
    const { tenant, key } = made.revoked;
    for (const g of gateways) expect(await callThrough(g, tenant, key.id)).toBe('ok');
    await setTenantStatus(tenant, 2);
    for (const g of gateways) expect(await callThrough(g, tenant, key.id)).toBe('TENANT_SUSPENDED');
    await setTenantStatus(tenant, 1);
    for (const g of gateways) expect(await callThrough(g, tenant, key.id)).toBe('ok');
    // As the revoke route stores it.
    await setKeyFields(tenant, key.id, { revokedAt: new Date().toISOString() });
    for (const g of gateways) expect(await callThrough(g, tenant, key.id)).toBe('KEY_REVOKED');
  });
});

describe('a slice left behind', () => {
  it('lapses with its window: the others get what it did not lease meanwhile, the next minute the whole limit', async () => {
    const { tenant, key } = made.leftBehind;
    const start = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + WINDOW_MS;
    // A busy instance's slices grow; then it stops (frozen or recycled) holding part of the last.
    const busy = await gatewayInstance();
    for (let i = 0; i < 10; i++) expect(await callThrough(busy, tenant, key.id, start + 1000)).toBe('ok');
    const leased = Number((await windowOf(key.id, start + 1000)).requests);
    expect(leased).toBeGreaterThan(10);
    expect(leased).toBeLessThanOrEqual(10 + 40 / 8);
    // The others never pass the limit with it; their own last slices may leave a few unused.
    const meanwhile = count(await burst(60, tenant, key.id, start + 2000), 'ok');
    expect(meanwhile).toBeLessThanOrEqual(40 - leased);
    expect(meanwhile).toBeGreaterThanOrEqual(40 - leased - 2 * (40 / 8));
    const next = await burst(60, tenant, key.id, start + WINDOW_MS + 1000);
    admittedWithin(next, 40, 40 / 8);
  });
});

describe('a lease write retried after its answer was lost', () => {
  it('leases once', async () => {
    const { tenant, key } = made.leasedOnce;
    const now = Date.now();
    await losingFirstAnswerOf('gk-rate', 'ADD requests', () => callThrough(home, tenant, key.id, now));
    expect(Number((await windowOf(key.id, now)).requests)).toBe(1);
  });

  it('gives a slice back once', async () => {
    const { tenant, key } = made.givenBackOnce;
    await inOneRateWindow(async () => {
      const now = Date.now();
      // Slices of 1, 2 and 4 calls: three requests leased and not used.
      for (let i = 0; i < 4; i++) expect(await callThrough(home, tenant, key.id, now)).toBe('ok');
      expect(Number((await windowOf(key.id, now)).requests)).toBe(7);
      await setKeyFields(tenant, key.id, { rpmLimit: 50 });
      await losingFirstAnswerOf('gk-rate', 'ADD requests', () => callThrough(home, tenant, key.id, now));
      // The four calls, and the fifth's own slice of one.
      expect(Number((await windowOf(key.id, now)).requests)).toBe(5);
    });
  });
});
