import { beforeAll, describe, expect, it } from 'vitest';
import { twoTenants } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { INTERNAL_KEY } from '#test/support/fuzz/world.ts';
import type { LlmCall } from '#areas/analytics/aggregate.ts';

let ctx: Awaited<ReturnType<typeof twoTenants>>;
beforeAll(async () => {
  ctx = await twoTenants();
});

const send = (body: unknown, key = INTERNAL_KEY) =>
  invoke('POST', '/api/analytics/events', { body, headers: key ? { 'x-internal-api-key': key } : {} });
const llm = (token: string, q: string) => invoke('GET', `/api/analytics/llm?${q}`, { token });
const support = (token: string, q: string) => invoke('GET', `/api/analytics/support?${q}`, { token });

/** A deterministic generator, so a failure reproduces. */
function rng(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}
const nearestRank = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length - 1e-9)) - 1]!;
};
const round2 = (v: number) => Math.round(v * 100) / 100;
/** The same instant written in local time at a UTC offset of `hours` (`…T12:30:00+02:00`). */
const withOffset = (utcMs: number, hours: number) =>
  `${new Date(utcMs + hours * 3_600_000).toISOString().slice(0, 19)}+${String(hours).padStart(2, '0')}:00`;

type Call = LlmCall;

describe('LLM analytics', () => {
  const random = rng(7);
  const agents = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
  const models = ['gpt-4.1', 'claude-sonnet', 'local-llama'];
  let calls: Call[];

  beforeAll(async () => {
    // 1,400 calls over 2026-03-01..10 (UTC), latencies spread over four orders of magnitude.
    calls = Array.from({ length: 1400 }, (_, i) => ({
      id: `call-${i}`,
      tenantId: ctx.tenantA,
      model: models[i % 3]!,
      agentId: i % 7 === 0 ? null : agents[i % 3]!,
      tokens: 100 + Math.floor(random() * 4000),
      costUsd: Math.round(random() * 100_000) / 1_000_000,
      latencyMs: Math.round(5 + random() ** 3 * 20_000),
      isError: random() < 0.04,
      timestamp: new Date(Date.UTC(2026, 2, 1 + (i % 10), i % 24, (i * 7) % 60)).toISOString(),
    }));
    const first = await send({ llmCalls: calls.slice(0, 1000) });
    expect(first).toAnswer(200);
    expect(first.json.result).toEqual({ accepted: 1000, duplicates: 0 });
    // A retried batch (overlapping the first) counts only what is new.
    const retry = await send({ llmCalls: calls.slice(800), conversations: [] });
    expect(retry.json.result).toEqual({ accepted: 400, duplicates: 200 });
  });

  it('reports totals, rates, agents, daily costs and p95/p99 per model computed from the events sent', async () => {
    const res = await llm(ctx.ownerA, 'startDate=2026-03-01&endDate=2026-03-10');
    expect(res).toAnswer(200);
    const r = res.json.result;
    expect(r.totalRequests).toBe(1400);
    expect(r.totalTokensUsed).toBe(calls.reduce((n, c) => n + c.tokens, 0));
    expect(r.totalCostUSD).toBeCloseTo(
      calls.reduce((n, c) => n + c.costUsd, 0),
      5,
    );
    expect(r.avgLatencyMs).toBeCloseTo(round2(calls.reduce((n, c) => n + c.latencyMs, 0) / 1400), 1);
    expect(r.errorRatePercent).toBe(round2((calls.filter((c) => c.isError).length / 1400) * 100));
    expect(r.activeAgentCount).toBe(3);
    expect(r.modelBreakdown).toHaveLength(3);
    for (const model of models) {
      const mine = calls.filter((c) => c.model === model);
      const m = r.modelBreakdown.find((x: { modelName: string }) => x.modelName === model);
      expect(m.requests).toBe(mine.length);
      for (const [q, field] of [
        [0.95, 'p95LatencyMs'],
        [0.99, 'p99LatencyMs'],
      ] as const) {
        const exact = nearestRank(
          mine.map((c) => c.latencyMs),
          q,
        );
        expect(Math.abs(m[field] - exact) / exact, `${model} ${field}: ${m[field]} vs ${exact}`).toBeLessThanOrEqual(
          0.01,
        );
      }
      expect(m.dailyCosts.map((d: { date: string }) => d.date)).toEqual(
        Array.from({ length: 10 }, (_, d) => `2026-03-${String(d + 1).padStart(2, '0')}`),
      );
      const day3 = mine.filter((c) => c.timestamp.startsWith('2026-03-03'));
      const got = m.dailyCosts.find((d: { date: string }) => d.date === '2026-03-03');
      expect(got.tokens).toBe(day3.reduce((n, c) => n + c.tokens, 0));
      expect(got.cost).toBeCloseTo(
        day3.reduce((n, c) => n + c.costUsd, 0),
        5,
      );
    }
  });

  it('a range is whole UTC days with both ends included', async () => {
    const r = (await llm(ctx.ownerA, 'startDate=2026-03-02&endDate=2026-03-03')).json.result;
    const inRange = calls.filter((c) => c.timestamp.startsWith('2026-03-02') || c.timestamp.startsWith('2026-03-03'));
    expect(r.totalRequests).toBe(inRange.length);
    expect((await llm(ctx.ownerA, 'startDate=2026-03-11&endDate=2026-03-31')).json.result.totalRequests).toBe(0);
  });

  it('refuses bad ranges (400): end before start, more than 366 days, not a date', async () => {
    expect(await llm(ctx.ownerA, 'startDate=2026-03-10&endDate=2026-03-09')).toAnswer(400);
    expect(await llm(ctx.ownerA, 'startDate=2025-01-01&endDate=2026-01-02')).toAnswer(400);
    expect(await llm(ctx.ownerA, 'startDate=2025-01-01&endDate=2026-01-01')).toAnswer(200);
    expect(await support(ctx.ownerA, 'startDate=2026-02-30&endDate=2026-03-01')).toAnswer(400);
    expect(await support(ctx.ownerA, 'startDate=yesterday')).toAnswer(400);
  });

  it("shows a tenant only its own usage; another tenant's tenantId is 403", async () => {
    expect((await llm(ctx.ownerB, 'startDate=2026-03-01&endDate=2026-03-10')).json.result.totalRequests).toBe(0);
    expect(await llm(ctx.ownerB, `startDate=2026-03-01&endDate=2026-03-10&tenantId=${ctx.tenantA}`)).toAnswer(403);
    expect(
      (await llm(ctx.admin, `startDate=2026-03-01&endDate=2026-03-10&tenantId=${ctx.tenantA}`)).json.result
        .totalRequests,
    ).toBe(1400);
  });
});

describe('support analytics', () => {
  it('reports rates, duration, csat distribution, the UTC hour heatmap and escalation reasons', async () => {
    const random = rng(11);
    const reasons = ['Billing dispute', 'Angry customer', null];
    const conversations = Array.from({ length: 300 }, (_, i) => {
      const escalated = random() < 0.3;
      return {
        id: `conv-${i}`,
        tenantId: ctx.tenantA,
        agentId: null,
        // Offsets: the hour is taken in UTC whatever the offset written.
        startedAt:
          i % 2
            ? new Date(Date.UTC(2026, 3, 1 + (i % 5), i % 24, 30)).toISOString()
            : withOffset(Date.UTC(2026, 3, 1 + (i % 5), i % 24, 30), 2),
        durationSeconds: 60 + Math.floor(random() * 1800),
        resolved: random() < 0.7,
        escalated,
        escalationReason: escalated ? reasons[i % 3] : null,
        csat: i % 4 === 0 ? null : 1 + Math.floor(random() * 5),
      };
    });
    const res = await send({ conversations });
    expect(res.json.result).toEqual({ accepted: 300, duplicates: 0 });
    const r = (await support(ctx.ownerA, 'startDate=2026-04-01&endDate=2026-04-05')).json.result;
    const n = conversations.length;
    expect(r.totalConversations).toBe(n);
    expect(r.resolutionRatePercent).toBe(round2((conversations.filter((c) => c.resolved).length / n) * 100));
    const escalated = conversations.filter((c) => c.escalated);
    expect(r.escalationRatePercent).toBe(round2((escalated.length / n) * 100));
    expect(r.avgDurationMinutes).toBe(round2(conversations.reduce((s, c) => s + c.durationSeconds, 0) / n / 60));
    const rated = conversations.filter((c) => c.csat !== null);
    expect(r.csatScore).toBe(round2(rated.reduce((s, c) => s + c.csat!, 0) / rated.length));
    expect(r.csatDistribution).toEqual(
      [1, 2, 3, 4, 5].map((score) => ({ score, count: rated.filter((c) => c.csat === score).length })),
    );
    expect(r.hourlyHeatmap).toEqual(
      Array.from({ length: 24 }, (_, hour) => ({
        hour,
        count: conversations.filter((c) => new Date(c.startedAt).getUTCHours() === hour).length,
      })),
    );
    const byReason = new Map<string, number>();
    for (const c of escalated)
      byReason.set(c.escalationReason ?? 'Unspecified', (byReason.get(c.escalationReason ?? 'Unspecified') ?? 0) + 1);
    expect(r.escalationReasons).toHaveLength(byReason.size);
    for (const e of r.escalationReasons)
      expect(e).toEqual({
        reason: e.reason,
        count: byReason.get(e.reason),
        percent: round2((byReason.get(e.reason)! / escalated.length) * 100),
      });
  });
});

describe('ingestion', () => {
  const call = (over: Record<string, unknown> = {}) => ({
    id: crypto.randomUUID(),
    tenantId: ctx.tenantB,
    model: 'gpt-4.1',
    tokens: 10,
    costUsd: 0.01,
    latencyMs: 100,
    isError: false,
    timestamp: '2026-05-01T10:00:00.000Z',
    ...over,
  });

  it('needs the internal key and refuses bad records, unknown tenants and more than 1000 records (nothing counted)', async () => {
    expect(await send({ llmCalls: [call()] }, '')).toAnswer(401);
    expect(await send({ llmCalls: [call()] }, 'wrong')).toAnswer(401);
    for (const bad of [
      { tokens: -1 },
      { latencyMs: -5 },
      { isError: 'no' },
      { timestamp: 'yesterday' },
      { model: 'a#b' },
      { tenantId: 'x' },
    ]) {
      expect(await send({ llmCalls: [call(bad)] }), JSON.stringify(bad)).toAnswer(400);
    }
    const conv = {
      id: 'c-1',
      tenantId: ctx.tenantB,
      startedAt: '2026-05-01T10:00:00.000Z',
      durationSeconds: 10,
      resolved: true,
      escalated: false,
      csat: 0,
    };
    expect(await send({ conversations: [conv] })).toAnswer(400);
    const unknown = await send({ llmCalls: [call(), call({ tenantId: crypto.randomUUID() })] });
    expect(unknown).toAnswer(400);
    expect(unknown.json.error.details[0].path).toBe('body.llmCalls.1.tenantId');
    expect(await send({ llmCalls: Array.from({ length: 1001 }, () => call()) })).toAnswer(400);
    expect((await llm(ctx.ownerB, 'startDate=2026-05-01&endDate=2026-05-01')).json.result.totalRequests).toBe(0);
    expect((await send({})).json.result).toEqual({ accepted: 0, duplicates: 0 });
  });

  it('counts a batch sent twice at the same time once', async () => {
    const batch = Array.from({ length: 60 }, (_, i) =>
      call({ id: `race-${i}`, timestamp: '2026-07-01T12:00:00.000Z', model: `m${i % 4}` }),
    );
    const [x, y] = await Promise.all([send({ llmCalls: batch }), send({ llmCalls: batch })]);
    expect(x).toAnswer(200);
    expect(y).toAnswer(200);
    expect(x.json.result.accepted + y.json.result.accepted).toBe(60);
    expect(x.json.result.duplicates + y.json.result.duplicates).toBe(60);
    const r = (await llm(ctx.ownerB, 'startDate=2026-07-01&endDate=2026-07-01')).json.result;
    expect(r.totalRequests).toBe(60);
    expect(r.modelBreakdown.map((m: { requests: number }) => m.requests)).toEqual([15, 15, 15, 15]);
  });

  it('counts the same id twice in one batch once', async () => {
    const c = call({ timestamp: '2026-06-01T00:00:00.000Z' });
    expect((await send({ llmCalls: [c, c] })).json.result).toEqual({ accepted: 1, duplicates: 1 });
    expect((await llm(ctx.ownerB, 'startDate=2026-06-01&endDate=2026-06-01')).json.result.totalRequests).toBe(1);
  });
});

describe('monthly budget', () => {
  it('is set by the tenant owner and alerts from 80% with current spend, limit and projected month-end spend', async () => {
    const b = (method: string, body?: unknown, token = ctx.ownerB) =>
      invoke(method, '/api/analytics/budget', { token, body });
    expect((await b('GET')).json.result).toEqual({ monthlyBudgetUsd: null });
    expect(await b('PUT', { monthlyBudgetUsd: 10 })).toAnswer(200);
    expect((await b('GET')).json.result).toEqual({ monthlyBudgetUsd: 10 });
    expect(await b('PUT', { monthlyBudgetUsd: -1 })).toAnswer(400);
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    const spend = (usd: number) =>
      send({
        llmCalls: [
          {
            id: crypto.randomUUID(),
            tenantId: ctx.tenantB,
            model: 'gpt-4.1',
            tokens: 1,
            costUsd: usd,
            latencyMs: 1,
            isError: false,
            timestamp: now.toISOString(),
          },
        ],
      });
    await spend(7.5);
    let r = (await llm(ctx.ownerB, `startDate=${today}&endDate=${today}`)).json.result;
    expect(r.budget).toMatchObject({ monthlyBudgetUsd: 10, currentMonthSpendUsd: 7.5 });
    expect(r.budgetAlert).toBeNull();
    await spend(0.5);
    r = (await llm(ctx.ownerB, `startDate=${today}&endDate=${today}`)).json.result;
    const daysInMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
    expect(r.budgetAlert).toMatchObject({
      month: today.slice(0, 7),
      currentSpendUsd: 8,
      limitUsd: 10,
      percentUsed: 80,
    });
    expect(r.budgetAlert.projectedMonthEndSpendUsd).toBeCloseTo((8 / now.getUTCDate()) * daysInMonth, 4);
    expect((await b('GET', undefined, ctx.ownerA)).json.result).toEqual({ monthlyBudgetUsd: null });
  });
});
