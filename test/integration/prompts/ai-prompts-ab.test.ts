import { beforeAll, describe, expect, it } from 'vitest';
import { conversationKey } from '#areas/conversations/records.ts';
import { listNewestFirst } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { get } from '#shared/data/read.ts';
import { AGENTS, newPrompt } from '#test/support/agents.ts';
import { ORIGIN, session } from '#test/support/conversations.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { caller, invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

const P = '/api/prompts';
let t: string;
let owner: string;
let member: string;
let ownerB: string;

beforeAll(async () => {
  t = await newTenant({ planType: 2, maxAgents: 20, maxWidgetIntegrations: 40 });
  owner = await tokenFor({ tenantId: t });
  member = await tokenFor({ tenantId: t, role: 'TenantMember' });
  ownerB = await tokenFor({ tenantId: await newTenant({ planType: 2, maxAgents: 10 }) });
});

/** Long enough that a turn on it costs many more prompt tokens than one on the short version. */
const LONG = `You are {{agent_name}}. ${'Always be precise, courteous and brief in every answer you give. '.repeat(60)}`;

/**
 * A prompt with two approved versions (v1 short, now Archived; v2 long, Active), a Draft v3, and a
 * published agent with a widget on it (pinned to v2).
 */
async function promptWithTwoVersions() {
  const p = caller(P, owner);
  const promptId = await newPrompt(owner);
  const v1 = (await p.get(`/${promptId}`)).json.result.activeVersionId as string;
  expect(await p.put(`/${promptId}`, { content: LONG })).toAnswer(200);
  const v2 = (await p.post(`/${promptId}/new-version`, {})).json.result.id as string;
  expect(await p.put(`/${promptId}/versions/${v2}/review`)).toAnswer(204);
  expect(await p.put(`/${promptId}/versions/${v2}/approve`)).toAnswer(204);
  const v3 = (await p.post(`/${promptId}/new-version`, {})).json.result.id as string;
  const agent = await invoke('POST', AGENTS, { token: owner, body: { name: 'Support', promptId } });
  expect(agent).toAnswer(201);
  const agentId = agent.json.result.id as string;
  expect(await invoke('POST', `${AGENTS}/${agentId}/publish`, { token: owner })).toAnswer(200);
  const widget = await invoke('POST', `${AGENTS}/${agentId}/widgets`, {
    token: owner,
    body: { name: 'Shop', allowedOrigins: [ORIGIN] },
  });
  expect(widget).toAnswer(201);
  return { promptId, v1, v2, v3, agentId, widgetKey: widget.json.result.widgetKey as string };
}

const abTest = (promptId: string, token = owner) => caller(`${P}/${promptId}/ab-test`, token);
const put = (promptId: string, body: Record<string, unknown>, token = owner) => abTest(promptId, token).put('', body);
const variantOf = async (conversationId: string) =>
  (await get<{ abVariant: { variant: string; promptVersionId: string } | null }>(conversationKey(t, conversationId), {
    consistent: true,
  }))!.abVariant;
/** The prompt tokens of the conversation's last agent answer, as the inbox shows them. */
const lastAnswerTokens = async (conversationId: string) => {
  const res = await invoke('GET', `/api/conversations/${conversationId}`, { token: owner });
  expect(res).toAnswer(200);
  const answers = (res.json.result.messages as { role: string; tokens: number }[]).filter((m) => m.role === 'agent');
  return answers.at(-1)!.tokens;
};
const auditOf = async (entityId: string) =>
  (
    await listNewestFirst<{ action: string; entityType: string; changes: string; userId: string | null }>(
      keys.platformCollection('AUDIT'),
      { page: 1, pageSize: 100, where: { entityId } },
    )
  ).items;

describe('A/B test routes', () => {
  let s: Awaited<ReturnType<typeof promptWithTwoVersions>>;
  beforeAll(async () => {
    s = await promptWithTwoVersions();
  });

  it('bad input is a clear 400 or 409, and nothing starts', async () => {
    const cases: [Record<string, unknown>, number, string, string?][] = [
      [{ versionAId: s.v1, versionBId: s.v1, shareB: 50, guard: null }, 400, 'VALIDATION_ERROR', 'body.versionBId'],
      [
        { versionAId: s.v1, versionBId: crypto.randomUUID(), shareB: 50, guard: null },
        400,
        'VALIDATION_ERROR',
        'body.versionBId',
      ],
      [{ versionAId: s.v1, versionBId: s.v3, shareB: 50, guard: null }, 409, 'CONFLICT'],
      [{ versionAId: s.v1, versionBId: s.v2, shareB: 101, guard: null }, 400, 'VALIDATION_ERROR', 'body.shareB'],
      [{ versionAId: s.v1, versionBId: s.v2, shareB: -1, guard: null }, 400, 'VALIDATION_ERROR', 'body.shareB'],
      [
        { versionAId: s.v1, versionBId: s.v2, shareB: 10, guard: { margin: 5, minConversations: 0 } },
        400,
        'VALIDATION_ERROR',
        'body.guard.minConversations',
      ],
      [{ versionAId: 'nope', versionBId: s.v2, shareB: 10, guard: null }, 400, 'VALIDATION_ERROR', 'body.versionAId'],
    ];
    for (const [body, status, code, path] of cases) {
      const res = await put(s.promptId, body);
      expect([res.status, res.json.error?.code], JSON.stringify(body)).toEqual([status, code]);
      if (path) expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    // A version of another prompt of the same tenant is not one of this prompt's.
    const other = await promptWithTwoVersions();
    const foreign = await put(s.promptId, { versionAId: s.v1, versionBId: other.v2, shareB: 10, guard: null });
    expect([foreign.status, foreign.json.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const none = await abTest(s.promptId).get('');
    expect([none.status, none.json.result]).toEqual([200, null]);
  });

  it('PUT starts it (200), GET shows it, abTestConfig follows it; DELETE ends it (204); each audited', async () => {
    const started = await put(s.promptId, {
      versionAId: s.v1,
      versionBId: s.v2,
      shareB: 30,
      guard: { margin: 10, minConversations: 50 },
      abTestConfig: { variantA: false, variantB: false },
      guardTrippedAt: '2020-01-01T00:00:00.000Z',
    });
    expect(started).toAnswer(200);
    expect(started.json.result).toMatchObject({
      versionAId: s.v1,
      versionBId: s.v2,
      shareB: 30,
      guard: { margin: 10, minConversations: 50 },
      guardTrippedAt: null,
      results: { A: { conversations: 0, escalationRate: null }, B: { conversations: 0 } },
    });
    expect(started.json.result.results.A.note).toEqual(expect.stringMatching(/fewer than 30/));
    const read = await abTest(s.promptId, member).get('');
    expect(read).toAnswer(200);
    expect(read.json.result.testId).toBe(started.json.result.testId);
    expect((await caller(P, owner).get(`/${s.promptId}`)).json.result.abTestConfig).toEqual({
      variantA: true,
      variantB: true,
    });

    // Changing the share keeps the test; other versions start a new one.
    const changed = await put(s.promptId, { versionAId: s.v1, versionBId: s.v2, shareB: 60, guard: null });
    expect([changed.json.result.testId, changed.json.result.shareB]).toEqual([started.json.result.testId, 60]);
    const swapped = await put(s.promptId, { versionAId: s.v2, versionBId: s.v1, shareB: 60, guard: null });
    expect(swapped.json.result.testId).not.toBe(started.json.result.testId);

    const ended = await abTest(s.promptId).del('');
    expect(ended).toAnswer(204);
    expect((await abTest(s.promptId).get('')).json.result).toBeNull();
    expect(await abTest(s.promptId).del('')).toAnswer(404);
    expect((await caller(P, owner).get(`/${s.promptId}`)).json.result.abTestConfig).toEqual({
      variantA: false,
      variantB: false,
    });
    const actions = (await auditOf(s.promptId)).filter((a) => a.entityType === 'PromptAbTest').map((a) => a.action);
    expect(actions.sort()).toEqual(['end', 'restart', 'start', 'update']);
  });

  it('shares and margins are kept to two decimals: a tiny value DynamoDB cannot store is 0, not a 500', async () => {
    const res = await put(s.promptId, {
      versionAId: s.v1,
      versionBId: s.v2,
      shareB: 7e-323,
      guard: { margin: 99.99999999999991, minConversations: 3 },
    });
    expect(res).toAnswer(200);
    expect(res.json.result).toMatchObject({ shareB: 0, guard: { margin: 100, minConversations: 3 } });
    const precise = await put(s.promptId, { versionAId: s.v1, versionBId: s.v2, shareB: 12.345, guard: null });
    expect(precise.json.result.shareB).toBe(12.35);
    expect(await abTest(s.promptId).del('')).toAnswer(204);
  });

  it('a client can no longer write abTestConfig on create or update', async () => {
    const created = await caller(P, owner).post('', {
      title: 'x',
      content: 'y',
      abTestConfig: { variantA: true, variantB: true },
    });
    expect(created).toAnswer(201);
    expect(created.json.result.abTestConfig).toEqual({ variantA: false, variantB: false });
    const updated = await caller(P, owner).put(`/${created.json.result.id}`, {
      abTestConfig: { variantA: true, variantB: false },
    });
    expect(updated.json.result.abTestConfig).toEqual({ variantA: false, variantB: false });
  });

  it('permissions and tenancy: a member reads but cannot write; another tenant sees 404', async () => {
    const body = { versionAId: s.v1, versionBId: s.v2, shareB: 10, guard: null };
    const byMember = await put(s.promptId, body, member);
    expect(byMember).toAnswer(403);
    expect(await abTest(s.promptId, member).del('')).toAnswer(403);
    const byOther = await put(s.promptId, body, ownerB);
    expect([byOther.status, byOther.json.error.code]).toEqual([404, 'NOT_FOUND']);
    expect(await abTest(s.promptId, ownerB).get('')).toAnswer(404);
    expect(await abTest(crypto.randomUUID()).get('')).toAnswer(404);
    expect(await invoke('GET', `${P}/${s.promptId}/ab-test`)).toAnswer(401);
  });
});

describe('A/B test in conversations', () => {
  it('each conversation keeps its variant after shareB changes, and its turns render that version', async () => {
    const s = await promptWithTwoVersions();
    // Before any test, the pinned (long) version answers.
    const plain = await session(s.widgetKey);
    expect(await plain.send('hello')).toAnswer(200);
    const longTokens = await lastAnswerTokens(plain.conversationId);
    expect(await variantOf(plain.conversationId)).toBeNull();

    // A is the short v1: a conversation on A answers with far fewer tokens than the pinned v2.
    expect(await put(s.promptId, { versionAId: s.v1, versionBId: s.v2, shareB: 0, guard: null })).toAnswer(200);
    const onA = await session(s.widgetKey);
    expect(await variantOf(onA.conversationId)).toEqual({
      promptId: s.promptId,
      testId: expect.any(String),
      variant: 'A',
      promptVersionId: s.v1,
    });
    expect(await onA.send('hello')).toAnswer(200);
    const shortTokens = await lastAnswerTokens(onA.conversationId);
    expect(shortTokens).toBeLessThan(longTokens / 2);

    expect(await put(s.promptId, { versionAId: s.v1, versionBId: s.v2, shareB: 100, guard: null })).toAnswer(200);
    const onB = await session(s.widgetKey);
    expect((await variantOf(onB.conversationId))?.variant).toBe('B');
    // The first conversation stays on A after the share moved to B, turn after turn.
    expect(await onA.send('hello')).toAnswer(200);
    expect(await lastAnswerTokens(onA.conversationId)).toBeLessThan(longTokens / 2);
    expect((await variantOf(onA.conversationId))?.variant).toBe('A');

    expect(await put(s.promptId, { versionAId: s.v1, versionBId: s.v2, shareB: 0, guard: null })).toAnswer(200);
    expect(await onB.send('hello')).toAnswer(200);
    expect(await lastAnswerTokens(onB.conversationId)).toBeGreaterThan(longTokens / 2);
    expect((await variantOf(onB.conversationId))?.variant).toBe('B');

    // Ending the test: started conversations keep their variant; new ones get the pinned version.
    expect(await abTest(s.promptId).del('')).toAnswer(204);
    expect(await onA.send('again')).toAnswer(200);
    expect(await lastAnswerTokens(onA.conversationId)).toBeLessThan(longTokens / 2);
    const after = await session(s.widgetKey);
    expect(await variantOf(after.conversationId)).toBeNull();
  });

  it('per-variant results: conversations (parallel starts counted once each), escalations, resolution, CSAT, tokens', async () => {
    const s = await promptWithTwoVersions();
    expect(await put(s.promptId, { versionAId: s.v1, versionBId: s.v2, shareB: 50, guard: null })).toAnswer(200);
    const sessions = await Promise.all(Array.from({ length: 16 }, () => session(s.widgetKey)));
    const byVariant = { A: [] as typeof sessions, B: [] as typeof sessions };
    for (const x of sessions) byVariant[(await variantOf(x.conversationId))!.variant as 'A' | 'B'].push(x);
    expect(byVariant.A.length + byVariant.B.length).toBe(16);
    // The split is a hash of random ids: a run where one side drew fewer than two starts a few more.
    while (byVariant.A.length < 2 || byVariant.B.length < 2) {
      const x = await session(s.widgetKey);
      byVariant[(await variantOf(x.conversationId))!.variant as 'A' | 'B'].push(x);
    }

    const a = byVariant.A[0]!;
    expect(await a.send('hi')).toAnswer(200);
    expect(await a.feedback(5)).toAnswer(200);
    const b = byVariant.B[0]!;
    expect(await b.send('hi')).toAnswer(200);
    expect(await b.escalate('need a person')).toAnswer(200);
    expect(await b.feedback(2)).toAnswer(200);

    const res = await abTest(s.promptId).get('');
    expect(res).toAnswer(200);
    const { A, B } = res.json.result.results;
    expect(A).toMatchObject({
      conversations: byVariant.A.length,
      closed: 1,
      resolutionRate: 0,
      escalationRate: 0,
      csat: 5,
      csatResponses: 1,
    });
    expect(B).toMatchObject({ conversations: byVariant.B.length, closed: 1, csat: 2, csatResponses: 1 });
    expect(B.escalationRate).toBeCloseTo(100 / byVariant.B.length, 1);
    expect(A.tokens).toBeGreaterThan(0);
    expect(B.tokens).toBeGreaterThan(A.tokens);
    expect(A.note).toEqual(expect.stringMatching(/^Only \d+ conversations? \(fewer than 30\)/));
    // A conversation marked resolved counts toward the resolution rate when it ends.
    const a2 = byVariant.A[1]!;
    const resolved = await invoke('PUT', `/api/conversations/${a2.conversationId}/status`, {
      token: owner,
      body: { status: 'Resolved' },
    });
    expect(resolved).toAnswer(200);
    expect(await a2.feedback(4)).toAnswer(200);
    const again = (await abTest(s.promptId).get('')).json.result.results.A;
    expect(again).toMatchObject({ closed: 2, resolutionRate: 50, csat: 4.5 });
  });

  it('the guard stops B by itself once B escalates more than the margin over the minimum sample, audited', async () => {
    const s = await promptWithTwoVersions();
    const started = await put(s.promptId, {
      versionAId: s.v1,
      versionBId: s.v2,
      shareB: 50,
      guard: { margin: 20, minConversations: 3 },
    });
    expect(started).toAnswer(200);
    const byVariant = {
      A: [] as Awaited<ReturnType<typeof session>>[],
      B: [] as Awaited<ReturnType<typeof session>>[],
    };
    const startOne = async () => {
      const x = await session(s.widgetKey);
      byVariant[(await variantOf(x.conversationId))!.variant as 'A' | 'B'].push(x);
    };
    // Two on B, escalated, while B has fewer than the minimum: the guard waits.
    while (byVariant.B.length < 2) await startOne();
    for (const x of byVariant.B) expect((await x.escalate()).status).toBe(200);
    while (byVariant.A.length < 3) await startOne();
    for (const x of byVariant.A) {
      const res = await invoke('PUT', `/api/conversations/${x.conversationId}/status`, {
        token: owner,
        body: { status: 'Resolved' },
      });
      expect(res).toAnswer(200);
    }
    let state = (await abTest(s.promptId).get('')).json.result;
    expect(state.shareB).toBe(50);
    expect(state.guardTrippedAt).toBeNull();

    // The third B conversation escalates: B at 100% against A's 0% over three each trips the guard.
    while (byVariant.B.length < 3) await startOne();
    expect(await byVariant.B[2]!.escalate()).toAnswer(200);
    state = (await abTest(s.promptId).get('')).json.result;
    expect(state.shareB).toBe(0);
    expect(state.guardTrippedAt).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
    expect(state.results.B.escalationRate).toBeGreaterThan(state.results.A.escalationRate + 20);
    const tripped = (await auditOf(s.promptId)).filter((a) => a.action === 'guardTripped');
    expect(tripped).toHaveLength(1);
    expect(JSON.parse(tripped[0]!.changes)).toMatchObject({ shareB: { from: 50, to: 0 } });

    // B receives no new conversation now.
    for (let i = 0; i < 6; i++) {
      const x = await session(s.widgetKey);
      expect((await variantOf(x.conversationId))?.variant).toBe('A');
    }
  });
});

describe('playground', () => {
  it('forces variant A or B; without a test it is 409; another value is 400', async () => {
    const s = await promptWithTwoVersions();
    const chat = (body: Record<string, unknown>) =>
      invoke('POST', `${AGENTS}/${s.agentId}/chat`, {
        token: owner,
        body: { messages: [{ role: 'user', content: 'hello' }], ...body },
      });
    const none = await chat({ variant: 'B' });
    expect([none.status, none.json.error.code]).toEqual([409, 'CONFLICT']);
    expect((await chat({})).json.result.promptVersionId).toBe(s.v2);
    expect(await put(s.promptId, { versionAId: s.v1, versionBId: s.v2, shareB: 0, guard: null })).toAnswer(200);
    const onB = await chat({ variant: 'B' });
    expect(onB).toAnswer(200);
    expect(onB.json.result.promptVersionId).toBe(s.v2);
    const onA = await chat({ variant: 'A' });
    expect(onA.json.result.promptVersionId).toBe(s.v1);
    expect(onA.json.result.usage.promptTokens).toBeLessThan(onB.json.result.usage.promptTokens / 2);
    expect(await chat({ variant: 'C' })).toAnswer(400);
  });
});
