import { beforeAll, describe, expect, it } from 'vitest';
import { admit, finish } from '#areas/llm-gateway/admission.ts';
import { chat, chatStream } from '#areas/llm-gateway/chat.ts';
import { promptTokens } from '#areas/llm-gateway/prompt-tokens.ts';
import { LEASE_LIFE_MS } from '#areas/llm-gateway/leases.ts';
import { releaseExpiredReservations } from '#areas/llm-gateway/reservations.ts';
import { countTokens } from '#areas/llm-gateway/tokens.ts';
import { ApiError } from '#shared/http/errors.ts';
import { inOneRateWindow, newTenant } from '#test/support/fixtures.ts';
import {
  ip,
  newKey,
  setAllowance,
  setTenantStatus,
  sweepAfterLeasesExpire,
  userSays,
  v1,
} from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * The gateway's guarantees under concurrency and its order of refusals: each call's worst case is
 * taken from room leased with one conditional update per limit, so parallel calls never take the
 * month's use (or a key's spend) past its limit.
 */
const SAY = userSays('please repeat this rather long sentence back to me');
/** Cut at 3 tokens, every answer uses exactly its reservation, so no settle frees room mid-burst. */
const MAX = 3;
let worst: number;

beforeAll(async () => {
  worst = (await promptTokens([{ role: 'user', content: SAY[0]!.content }])) + MAX;
});

async function tenantWithKey(allowance: number, keyBody: Record<string, unknown> = {}) {
  const tenant = await newTenant({ planType: 2 });
  await setAllowance(tenant, allowance);
  const owner = await tokenFor({ tenantId: tenant });
  const key = await newKey(owner, keyBody);
  return { tenant, owner, key };
}

const usageOf = async (owner: string) =>
  (await invoke('GET', '/api/llm-gateway/usage', { token: owner, ip: ip() })).json.result;

const call = (secret: string, body: Record<string, unknown> = {}) =>
  v1('POST', '/chat/completions', secret, { body: { model: 'local-chat', messages: SAY, max_tokens: MAX, ...body } });

describe('twenty parallel calls', () => {
  it('against a month allowance that fits five admit exactly five, and the use stays within it', async () => {
    const allowance = 5 * worst + worst - 1;
    const { owner, key } = await tenantWithKey(allowance);
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(key.key)));
    const ok = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 429);
    expect(ok).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const r of refused) expect(r.json.error.code, r.text).toBe('insufficient_quota');
    for (const r of ok) expect(r.json.choices[0].finish_reason).toBe('length');
    const usage = await usageOf(owner);
    expect(usage.tokensUsed).toBe(5 * worst);
    expect(usage.tokensUsed + usage.tokensReserved).toBeLessThanOrEqual(allowance);
    expect(usage.tokenAllowance).toBe(allowance);
    await sweepAfterLeasesExpire();
    expect(await usageOf(owner)).toMatchObject({ tokensUsed: 5 * worst, tokensReserved: 0 });
  });

  it("against a key budget that fits five admit exactly five, and the key's spend stays within it", async () => {
    // local-chat: $1 per million input tokens, $2 per million output tokens.
    const worstUsd = ((worst - MAX) * 1 + MAX * 2) / 1_000_000;
    const budget = Math.round(worstUsd * 5.5 * 1e9) / 1e9;
    const { owner, key } = await tenantWithKey(10_000_000, { maxBudgetUsd: budget });
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(key.key)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
    const refused = answers.filter((r) => r.status === 429);
    expect(refused).toHaveLength(15);
    for (const r of refused) expect(r.json.error.code, r.text).toBe('budget_exceeded');
    const listed = (await invoke('GET', '/api/llm-gateway/keys', { token: owner, ip: ip() })).json.result.items[0];
    expect(listed.spendUsd).toBeCloseTo(5 * worstUsd, 9);
    expect(listed.spendUsd).toBeLessThanOrEqual(budget);
    expect(listed.lastUsedAt).not.toBeNull();
    // A call the key's budget refused takes none of the month's tokens it was leased beside it.
    expect((await usageOf(owner)).tokensUsed).toBe(5 * worst);
    await sweepAfterLeasesExpire();
    expect(await usageOf(owner)).toMatchObject({ tokensUsed: 5 * worst, tokensReserved: 0 });
    const swept = (await invoke('GET', '/api/llm-gateway/keys', { token: owner, ip: ip() })).json.result.items[0];
    expect(swept.spendUsd).toBeCloseTo(5 * worstUsd, 9);
  });
});

describe('order of refusals', () => {
  it('unknown key 401, model 404 before revoked 401, then rate 429, budget 429, allowance 429', async () => {
    const { owner, key } = await tenantWithKey(worst, { models: ['local-chat'], rpmLimit: 1, maxBudgetUsd: 0 });
    expect((await call('gk_unknown')).json.error.code).toBe('invalid_api_key');

    // Budget 0 and an allowance of one call: the budget answers first.
    const [first, second] = await inOneRateWindow(async () => [await call(key.key), await call(key.key)]);
    expect(first).toAnswer(429, 'budget_exceeded');
    // The rpm window is spent by that call: the rate limit answers before the budget now.
    expect(second).toAnswer(429, 'rate_limit_exceeded');
    expect(Number(second.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    // A model the key may not use is 404 even for a revoked key; an allowed one is then 401.
    await invoke('DELETE', `/api/llm-gateway/keys/${key.id}`, { token: owner, ip: ip() });
    const otherModel = await call(key.key, { model: 'local-chat-large' });
    expect(otherModel).toAnswer(404, 'model_not_found');
    const revoked = await call(key.key);
    expect(revoked).toAnswer(401);
    expect(revoked.json.error).toMatchObject({ code: 'invalid_api_key', type: 'invalid_request_error' });
    expect(revoked.json.error.message).toMatch(/revoked/);
  });

  it('an expired key is 401; a model of another kind or inactive is 404', async () => {
    const { key } = await tenantWithKey(1_000_000, { expiresAt: new Date(Date.now() + 60_000).toISOString() });
    expect((await call(key.key, { model: 'local-embed' })).json.error.code).toBe('model_not_found');
    expect(await call(key.key, { model: 'no-such-model' })).toAnswer(404);
    // A key cannot be created expired: one that expires a moment after it is made.
    const { key: old } = await tenantWithKey(1_000_000, { expiresAt: new Date(Date.now() + 1500).toISOString() });
    await new Promise((r) => setTimeout(r, 1600));
    const expired = await call(old.key);
    expect(expired).toAnswer(401);
    expect(expired.json.error.message).toMatch(/expired/);
  });

  it('the allowance refuses with TOKEN_LIMIT_REACHED in process (enveloped routes) and insufficient_quota on the wire', async () => {
    const tenant = await newTenant({ planType: 2 });
    await setAllowance(tenant, worst - 1);
    const refusal = await chat({
      tenantId: tenant,
      caller: { kind: 'user', userId: crypto.randomUUID() },
      requestId: crypto.randomUUID(),
      model: 'local-chat',
      messages: [{ role: 'user', content: SAY[0]!.content }],
      maxTokens: MAX,
    }).catch((e) => e);
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ status: 429, code: 'TOKEN_LIMIT_REACHED' });
  });
});

describe('a warm instance reserves on what the last call saw, beside a fresh read', () => {
  const tokensReserved = async (owner: string) => (await usageOf(owner)).tokensReserved;

  it('a lowered allowance refuses the very next call and holds nothing; raised again, it admits', async () => {
    const { tenant, owner, key } = await tenantWithKey(100 * worst);
    expect(await call(key.key)).toAnswer(200);
    // The instance saw room for 99 more calls; the allowance now leaves room for none.
    await setAllowance(tenant, 2 * worst - 1);
    const refused = await call(key.key);
    expect(refused).toAnswer(429, 'insufficient_quota');
    // The lease taken under the old allowance was settled before the call was judged on the new one.
    expect(await tokensReserved(owner)).toBe(0);
    await setAllowance(tenant, 2 * worst);
    expect(await call(key.key)).toAnswer(200);
    expect((await usageOf(owner)).tokensUsed).toBe(2 * worst);
  });

  it('a key revoked after a call is refused on the next one, which holds nothing', async () => {
    const { owner, key } = await tenantWithKey(100 * worst);
    expect(await call(key.key)).toAnswer(200);
    await invoke('DELETE', `/api/llm-gateway/keys/${key.id}`, { token: owner, ip: ip() });
    const revoked = await call(key.key);
    expect(revoked).toAnswer(401);
    expect(revoked.json.error.message).toMatch(/revoked/);
    expect((await usageOf(owner)).tokensUsed).toBe(worst);
    await sweepAfterLeasesExpire();
    expect(await usageOf(owner)).toMatchObject({ tokensUsed: worst, tokensReserved: 0 });
  });

  it("a suspended or cancelled tenant's keys and agents are refused (403); active again, they answer", async () => {
    const { tenant, owner, key } = await tenantWithKey(100 * worst);
    expect(await call(key.key)).toAnswer(200);
    await setTenantStatus(tenant, 2);
    const suspended = await call(key.key);
    expect(suspended).toAnswer(403);
    expect(suspended.json.error).toMatchObject({ code: 'tenant_suspended', type: 'permission_error' });
    const inProcess = await chat({
      tenantId: tenant,
      caller: { kind: 'agent', agentId: crypto.randomUUID() },
      requestId: crypto.randomUUID(),
      model: 'local-chat',
      messages: [{ role: 'user', content: 'hello' }],
    }).catch((e) => e);
    expect(inProcess).toMatchObject({ status: 403, code: 'TENANT_SUSPENDED' });
    await setTenantStatus(tenant, 3);
    expect((await call(key.key)).json.error.code).toBe('tenant_cancelled');
    expect((await usageOf(owner)).tokensUsed).toBe(worst);
    await setTenantStatus(tenant, 1);
    expect(await call(key.key)).toAnswer(200);
    expect((await usageOf(owner)).tokensUsed).toBe(2 * worst);
  });
});

describe('fallbacks', () => {
  it('local-flaky fails with a 5xx: local-chat answers, is named, billed at its prices and recorded once', async () => {
    const { owner, key } = await tenantWithKey(1_000_000);
    const res = await call(key.key, { model: 'local-flaky', max_tokens: 50 });
    expect(res).toAnswer(200);
    expect(res.json.model).toBe('local-chat');
    const usage = await usageOf(owner);
    expect(usage.models.map((m: { model: string }) => m.model)).toEqual(['local-chat']);
    const u = res.json.usage;
    expect(usage.spendUsd).toBeCloseTo((u.prompt_tokens * 1 + u.completion_tokens * 2) / 1_000_000, 9);
    const analytics = (await invoke('GET', '/api/analytics/llm', { token: owner, ip: ip() })).json.result;
    expect(analytics.totalRequests).toBe(1);
    expect(analytics.modelBreakdown[0].modelName).toBe('local-chat');
  });

  it('a stream falls back before its first byte', async () => {
    const { key } = await tenantWithKey(1_000_000);
    const res = await call(key.key, { model: 'local-flaky', stream: true });
    expect(res).toAnswer(200);
    expect(res.text).toContain('"model":"local-chat"');
    expect(res.text.trim().endsWith('data: [DONE]')).toBe(true);
  });

  it('a model without a working fallback fails, releases its reservation and is recorded as an error', async () => {
    const name = await lonelyFlaky();
    const { owner, key } = await tenantWithKey(1_000_000);
    const res = await call(key.key, { model: name });
    expect(res).toAnswer(503, 'upstream_error');
    await expectOneFailedCall(owner);
  });

  it('so does a stream whose whole chain fails before its first byte: 503, nothing held, one error record', async () => {
    const name = await lonelyFlaky();
    const { owner, key } = await tenantWithKey(1_000_000);
    const res = await call(key.key, { model: name, stream: true, stream_options: { include_usage: true } });
    expect(res).toAnswer(503, 'upstream_error');
    await expectOneFailedCall(owner);
  });
});

/** A chat model that always fails and has no fallback. */
async function lonelyFlaky() {
  const admin = await tokenFor({ role: 'SystemAdmin' });
  const id = crypto.randomUUID();
  const put = await invoke('PUT', `/api/llm-gateway/models/${id}`, {
    token: admin,
    ip: ip(),
    body: {
      name: `lonely-flaky-${id.slice(0, 6)}`,
      provider: 'local',
      providerModel: 'flaky',
      kind: 'chat',
      inputPricePerMillion: 1,
      outputPricePerMillion: 1,
      contextWindow: 1000,
    },
  });
  expect(put).toAnswer(201);
  return put.json.result.name as string;
}

async function expectOneFailedCall(owner: string) {
  const usage = await usageOf(owner);
  expect(usage).toMatchObject({ tokensUsed: 0, spendUsd: 0 });
  await sweepAfterLeasesExpire();
  expect(await usageOf(owner)).toMatchObject({ tokensUsed: 0, tokensReserved: 0 });
  const analytics = (await invoke('GET', '/api/analytics/llm', { token: owner, ip: ip() })).json.result;
  expect(analytics.totalRequests).toBe(1);
  expect(analytics.errorRatePercent).toBe(100);
}

describe('a completed stream', () => {
  it('settles once: the month, the key and the records count it exactly once, nothing stays held', async () => {
    const { owner, key } = await tenantWithKey(1_000_000);
    const res = await call(key.key, { stream: true, stream_options: { include_usage: true }, max_tokens: 50 });
    expect(res).toAnswer(200);
    const chunks = res.text
      .split('\n\n')
      .filter((e) => e && e !== 'data: [DONE]')
      .map((e) => JSON.parse(e.replace(/^data: /, '')));
    const used = chunks.at(-1).usage;
    const cost = (used.prompt_tokens * 1 + used.completion_tokens * 2) / 1_000_000;
    const usage = await usageOf(owner);
    expect(usage.tokensUsed).toBe(used.total_tokens);
    expect(usage.spendUsd).toBeCloseTo(cost, 9);
    // The month's tokens beside the plan's limits count the open lease's use too.
    const entitled = await invoke('GET', '/api/ai/entitlements', { token: owner, ip: ip() });
    expect(entitled.json.result.tokensPerMonth.used).toBe(used.total_tokens);
    expect(usage.models).toEqual([
      expect.objectContaining({ model: 'local-chat', requests: 1, completionTokens: used.completion_tokens }),
    ]);
    expect(usage.keys).toEqual([expect.objectContaining({ keyId: key.id, requests: 1 })]);
    const listed = (await invoke('GET', '/api/llm-gateway/keys', { token: owner, ip: ip() })).json.result.items;
    expect(listed[0].spendUsd).toBeCloseTo(cost, 9);
    const analytics = (await invoke('GET', '/api/analytics/llm', { token: owner, ip: ip() })).json.result;
    expect(analytics.totalRequests).toBe(1);
    expect(analytics.totalTokensUsed).toBe(used.total_tokens);
    await sweepAfterLeasesExpire();
    expect(await usageOf(owner)).toMatchObject({ tokensUsed: used.total_tokens, tokensReserved: 0 });
    const swept = (await invoke('GET', '/api/llm-gateway/keys', { token: owner, ip: ip() })).json.result.items;
    expect(swept[0].spendUsd).toBeCloseTo(cost, 9);
  });
});

describe('a lease its instance abandoned', () => {
  const admitOne = (tenant: string) =>
    admit({
      tenantId: tenant,
      caller: { kind: 'user', userId: crypto.randomUUID() },
      requestId: crypto.randomUUID(),
      model: 'local-chat',
      kind: 'chat',
      promptTokens: 10,
      maxOutput: 90,
    });

  it('is settled by the scheduler sweep after its expiry, not before, to what its calls recorded', async () => {
    const tenant = await newTenant({ planType: 2 });
    const owner = await tokenFor({ tenantId: tenant });
    // One call answered and recorded, one admitted whose instance then died.
    const first = await admitOne(tenant);
    await finish(first, { model: first.chain[0]!, promptTokens: 10, completionTokens: 5 });
    await admitOne(tenant);
    const held = await usageOf(owner);
    expect(held.tokensUsed).toBe(15);
    expect(held.tokensReserved).toBeGreaterThanOrEqual(100);
    await releaseExpiredReservations(Date.now() + LEASE_LIFE_MS - 60_000);
    expect(await usageOf(owner)).toEqual(held);
    expect(await releaseExpiredReservations(Date.now() + LEASE_LIFE_MS + 1000)).toBeGreaterThanOrEqual(1);
    expect(await usageOf(owner)).toMatchObject({ tokensUsed: 15, tokensReserved: 0 });
  });

  it('expires past the longest call it may admit', () => {
    // A call admitted at the end of a lease's use runs at most a Lambda's 15 minutes.
    expect(LEASE_LIFE_MS).toBeGreaterThan(30_000 + 15 * 60_000);
  });
});

describe('a stream the client abandons', () => {
  it('is billed for what the provider produced up to then', async () => {
    const tenant = await newTenant({ planType: 2 });
    const owner = await tokenFor({ tenantId: tenant });
    const stream = chatStream({
      tenantId: tenant,
      caller: { kind: 'user', userId: crypto.randomUUID() },
      requestId: crypto.randomUUID(),
      model: 'local-chat',
      messages: [{ role: 'user', content: 'alpha beta gamma delta epsilon' }],
    });
    let produced = '';
    for await (const chunk of stream) {
      if (chunk.type === 'text') produced += chunk.text;
      if (produced.split(' ').length >= 3) break;
    }
    const usage = await usageOf(owner);
    const billed = await countTokens(produced);
    expect(usage.models[0].completionTokens).toBe(billed);
    expect(usage.tokensUsed).toBe(usage.models[0].promptTokens + billed);
  });
});
