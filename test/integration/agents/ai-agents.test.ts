import { beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_KEY } from '#test/support/fuzz/world.ts';
import { LOCAL_MODEL_IDS } from '#areas/llm-gateway/catalog.ts';
import { AGENTS, newPrompt, seedTool } from '#test/support/agents.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { caller, invoke } from '#test/support/invoke.ts';
import { newBase } from '#test/support/knowledge.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { auditActions } from '#test/support/audit.ts';

let tenantA: string;
let ownerA: string;
let memberA: string;
let ownerB: string;
let promptA: string;
let owner: ReturnType<typeof caller>;

beforeAll(async () => {
  tenantA = await newTenant({ planType: 2, maxAgents: 50, maxKnowledgeBases: 5 });
  const tenantB = await newTenant({ planType: 2, maxAgents: 5, maxKnowledgeBases: 5 });
  ownerA = await tokenFor({ tenantId: tenantA });
  memberA = await tokenFor({ tenantId: tenantA, role: 'TenantMember' });
  ownerB = await tokenFor({ tenantId: tenantB });
  owner = caller(AGENTS, ownerA);
  promptA = await newPrompt(ownerA);
});

const create = async (body: Record<string, unknown> = {}) => {
  const res = await owner.post('', { name: `Agent ${crypto.randomUUID().slice(0, 6)}`, promptId: promptA, ...body });
  expect(res).toAnswer(201);
  return res.json.result as Record<string, unknown> & { id: string; updatedAt: string };
};

describe('AI agents: create, read, list', () => {
  it("create makes a Draft with the prompt's model, defaults and an audit entry; get returns it", async () => {
    const a = await create({ description: 'Helps', welcomeMessage: 'Hi!' });
    expect(a).toMatchObject({
      status: 'Draft',
      promptId: promptA,
      promptVersionId: null,
      modelId: LOCAL_MODEL_IDS.chat,
      description: 'Helps',
      welcomeMessage: 'Hi!',
      temperature: null,
      escalation: { enabled: false, noAnswerThreshold: 0.5, maxTurnsBeforeEscalation: null },
      knowledgeBaseIds: [],
      toolIds: [],
      publishedVersion: null,
    });
    const got = await owner.get(`/${a.id}`);
    expect(got.json.result).toEqual(a);
    expect(await auditActions(a.id)).toEqual(['create']);
  });

  it('refuses a prompt, model, tool or base the tenant may not use (400), and a PENDING tool', async () => {
    const pendingTool = await seedTool(tenantA, 'PENDING');
    const otherPrompt = await newPrompt(ownerB);
    const bad = [
      { promptId: otherPrompt },
      { modelId: crypto.randomUUID() },
      { modelId: LOCAL_MODEL_IDS.embed },
      { toolIds: [pendingTool] },
      { toolIds: [crypto.randomUUID()] },
      { knowledgeBaseIds: [crypto.randomUUID()] },
    ];
    for (const body of bad) {
      const res = await owner.post('', { name: 'Bad', promptId: promptA, ...body });
      expect(res, JSON.stringify(body)).toAnswer(400);
    }
    const noModel = await newPrompt(ownerA, { modelId: null });
    expect(await owner.post('', { name: 'No model', promptId: noModel })).toAnswer(400);
  });

  it("accepts the tenant's ACTIVE tools and its bases; PUT tools and knowledge-bases replace them", async () => {
    const tool = await seedTool(tenantA, 'ACTIVE');
    const kb = (await newBase(ownerA)).id as string;
    const a = await create({ toolIds: [tool, tool], knowledgeBaseIds: [kb] });
    expect(a).toMatchObject({ toolIds: [tool], knowledgeBaseIds: [kb] });
    const t = await owner.put(`/${a.id}/tools`, { toolIds: [] });
    expect(t).toAnswer(200);
    expect(t.json.result.toolIds).toEqual([]);
    expect(await owner.put(`/${a.id}/tools`, { toolIds: [await seedTool(tenantA, 'APPROVED')] })).toAnswer(400);
    const k = await owner.put(`/${a.id}/knowledge-bases`, { knowledgeBaseIds: [] });
    expect(k.json.result.knowledgeBaseIds).toEqual([]);
    expect((await owner.get(`/${a.id}`)).json.result).toMatchObject({ toolIds: [], knowledgeBaseIds: [] });
    expect(await auditActions(a.id)).toEqual(['create', 'set-tools', 'set-knowledge-bases']);
  });

  it('lists newest first with search and status filters', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const one = await create({ name: `Zeta ${tag}` });
    await create({ name: `Eta ${tag}` });
    const found = await owner.get(`?search=zeta%20${tag}`);
    expect(found.json.result.items.map((i: { id: string }) => i.id)).toEqual([one.id]);
    await owner.post(`/${one.id}/publish`);
    const published = await owner.get('?status=Published&pageSize=100');
    expect(published.json.result.items.map((i: { id: string }) => i.id)).toContain(one.id);
    for (const i of published.json.result.items) expect(i.status).toBe('Published');
  });

  it('PUT replaces the draft settings; the stored fields are those a GET shows', async () => {
    const a = await create();
    const res = await owner.put(`/${a.id}`, {
      name: 'Renamed',
      promptId: promptA,
      temperature: 0.3,
      escalation: { enabled: true, noAnswerThreshold: 0.2, maxTurnsBeforeEscalation: 4 },
    });
    expect(res).toAnswer(200);
    expect((await owner.get(`/${a.id}`)).json.result).toMatchObject({
      name: 'Renamed',
      temperature: 0.3,
      escalation: { enabled: true, noAnswerThreshold: 0.2, maxTurnsBeforeEscalation: 4 },
    });
  });

  it('soft delete: 204, then 404 everywhere, gone from the list, the slot freed; audit kept', async () => {
    const a = await create();
    const before = (await owner.get('')).json.result.totalCount as number;
    const ent = async () => (await invoke('GET', '/api/ai/entitlements', { token: ownerA })).json.result.agents.used;
    const usedBefore = await ent();
    expect(await owner.del(`/${a.id}`)).toAnswer(204);
    expect(await owner.get(`/${a.id}`)).toAnswer(404);
    expect(await owner.del(`/${a.id}`)).toAnswer(404);
    expect(await owner.post(`/${a.id}/publish`)).toAnswer(404);
    expect((await owner.get('')).json.result.totalCount).toBe(before - 1);
    expect(await ent()).toBe(usedBefore - 1);
    expect(await auditActions(a.id)).toEqual(['create', 'delete']);
  });
});

describe('AI agents: publish, versions, restore, duplicate', () => {
  it("publish pins the prompt's Active version in version 1; unpublish goes back to Draft", async () => {
    const a = await create();
    const pub = await owner.post(`/${a.id}/publish`);
    expect(pub).toAnswer(200);
    expect(pub.json.result).toMatchObject({ status: 'Published', publishedVersion: 1 });
    const pinned = pub.json.result.promptVersionId as string;
    const prompt = (await invoke('GET', `/api/prompts/${promptA}`, { token: ownerA })).json.result;
    expect(prompt.versions.find((v: { status: string }) => v.status === 'Active').id).toBe(pinned);
    const un = await owner.post(`/${a.id}/unpublish`);
    expect(un.json.result).toMatchObject({ status: 'Draft', publishedVersion: null, promptVersionId: null });
    expect(await auditActions(a.id)).toEqual(['create', 'publish', 'unpublish']);
  });

  it('publish pins the Active version even when the prompt has newer versions not yet approved', async () => {
    const promptId = await newPrompt(ownerA);
    const prompts = caller('/api/prompts', ownerA);
    const active = (await prompts.get(`/${promptId}`)).json.result.versions[0].id as string;
    expect(await prompts.put(`/${promptId}`, { content: 'Newer text, never approved.' })).toAnswer(200);
    const draft = await prompts.post(`/${promptId}/new-version`, { versionNote: 'draft' });
    const inReview = await prompts.post(`/${promptId}/new-version`, { versionNote: 'in review' });
    expect([draft.status, inReview.status]).toEqual([201, 201]);
    expect(await prompts.put(`/${promptId}/versions/${inReview.json.result.id}/review`)).toAnswer(204);

    const a = await create({ promptId });
    const pub = await owner.post(`/${a.id}/publish`);
    expect(pub).toAnswer(200);
    expect(pub.json.result.promptVersionId).toBe(active);
    const v1 = (await owner.get(`/${a.id}/versions`)).json.result.items[0];
    expect(v1).toMatchObject({ version: 1, promptVersionId: active });
  });

  it('publish without an Active prompt version is 409 and creates no version', async () => {
    const draftOnly = await newPrompt(ownerA, { active: false });
    const a = await create({ promptId: draftOnly });
    const res = await owner.post(`/${a.id}/publish`);
    expect(res).toAnswer(409, 'NO_ACTIVE_PROMPT_VERSION');
    expect((await owner.get(`/${a.id}/versions`)).json.result.totalCount).toBe(0);
  });

  it('versions grow and are immutable; restore copies one into the draft and never lowers the count', async () => {
    const a = await create({ name: 'First', temperature: 0.1 });
    await owner.post(`/${a.id}/publish`);
    await owner.put(`/${a.id}`, { name: 'Second', promptId: promptA, temperature: 0.9 });
    const p2 = await owner.post(`/${a.id}/publish`);
    expect(p2.json.result.publishedVersion).toBe(2);
    const versions = (await owner.get(`/${a.id}/versions`)).json.result;
    expect(versions.totalCount).toBe(2);
    expect(versions.items.map((v: { version: number; name: string }) => [v.version, v.name])).toEqual([
      [2, 'Second'],
      [1, 'First'],
    ]);
    const page2 = (await owner.get(`/${a.id}/versions?pageSize=1&page=2`)).json.result;
    expect(page2.items.map((v: { version: number }) => v.version)).toEqual([1]);
    const v1 = versions.items[1].id as string;
    const restored = await owner.post(`/${a.id}/versions/${v1}/restore`);
    expect(restored).toAnswer(200);
    // The draft takes version 1's settings; what is published stays version 2.
    expect(restored.json.result).toMatchObject({
      name: 'First',
      temperature: 0.1,
      status: 'Published',
      publishedVersion: 2,
    });
    const p3 = await owner.post(`/${a.id}/publish`);
    expect(p3.json.result.publishedVersion).toBe(3);
    // Version 1 still says what it said.
    const again = (await owner.get(`/${a.id}/versions?pageSize=10`)).json.result.items;
    expect(again.find((v: { id: string }) => v.id === v1)).toMatchObject({ name: 'First', temperature: 0.1 });
    expect(await owner.post(`/${a.id}/versions/${crypto.randomUUID()}/restore`)).toAnswer(404);
  });

  it('a version of another agent cannot be restored into this one (404)', async () => {
    const a = await create();
    const b = await create();
    await owner.post(`/${a.id}/publish`);
    const v = (await owner.get(`/${a.id}/versions`)).json.result.items[0].id;
    expect(await owner.post(`/${b.id}/versions/${v}/restore`)).toAnswer(404);
  });

  it('duplicate makes a Draft copy under a new id, with its own name or "(copy)"', async () => {
    const a = await create({ name: 'Original', temperature: 0.4 });
    await owner.post(`/${a.id}/publish`);
    const d = await owner.post(`/${a.id}/duplicate`, {});
    expect(d).toAnswer(201);
    expect(d.json.result).toMatchObject({
      name: 'Original (copy)',
      status: 'Draft',
      publishedVersion: null,
      temperature: 0.4,
    });
    expect(d.json.result.id).not.toBe(a.id);
    const named = await owner.post(`/${a.id}/duplicate`, { name: 'Named' });
    expect(named.json.result.name).toBe('Named');
  });
});

describe('AI agents: access, plan, tenancy', () => {
  it('reads need ai:read; writes need TenantOwner or ai:manage (a member may read, not write)', async () => {
    const a = await create();
    const member = caller(AGENTS, memberA);
    expect(await member.get(`/${a.id}`)).toAnswer(200);
    expect(await member.post('', { name: 'x', promptId: promptA })).toAnswer(403);
    expect(await member.post(`/${a.id}/publish`)).toAnswer(403);
  });

  it("another tenant's agent is 404 for every route", async () => {
    const a = await create();
    const b = caller(AGENTS, ownerB);
    expect(await b.get(`/${a.id}`)).toAnswer(404);
    expect(await b.post(`/${a.id}/publish`)).toAnswer(404);
    expect(await b.del(`/${a.id}`)).toAnswer(404);
    expect(await b.get(`/${a.id}/versions`)).toAnswer(404);
    expect(await owner.get(`/${a.id}`)).toAnswer(200);
  });

  it('a tenant whose plan has no AI agents gets 403 FEATURE_NOT_IN_PLAN on writes', async () => {
    const t = await newTenant({ planType: 2, maxAgents: 0 });
    const token = await tokenFor({ tenantId: t });
    const prompt = await newPrompt(token);
    const res = await invoke('POST', AGENTS, { token, body: { name: 'No', promptId: prompt } });
    expect(res).toAnswer(403, 'FEATURE_NOT_IN_PLAN');
    const ent = (await invoke('GET', '/api/ai/entitlements', { token })).json.result;
    expect(ent.aiAgentsEnabled).toBe(false);
    // A SystemAdmin's override on the tenant item turns it off even with agent slots left.
    const off = await newTenant({ planType: 2, maxAgents: 5, aiAgentsEnabled: false });
    const offToken = await tokenFor({ tenantId: off });
    const p2 = await newPrompt(offToken);
    expect(await invoke('POST', AGENTS, { token: offToken, body: { name: 'No', promptId: p2 } })).toAnswer(403);
  });

  it('maxAgents: create and duplicate stop at the limit with 409 PLAN_LIMIT_REACHED', async () => {
    const t = await newTenant({ planType: 2, maxAgents: 2 });
    const token = await tokenFor({ tenantId: t });
    const prompt = await newPrompt(token);
    const c = caller(AGENTS, token);
    const first = await c.post('', { name: 'One', promptId: prompt });
    expect(await c.post(`/${first.json.result.id}/duplicate`, {})).toAnswer(201);
    const third = await c.post('', { name: 'Three', promptId: prompt });
    expect(third).toAnswer(409, 'PLAN_LIMIT_REACHED');
    expect((await c.post(`/${first.json.result.id}/duplicate`, {})).json.error.code).toBe('PLAN_LIMIT_REACHED');
    expect(await c.del(`/${first.json.result.id}`)).toAnswer(204);
    expect(await c.post('', { name: 'Again', promptId: prompt })).toAnswer(201);
  });
});

describe('AI entitlements and models', () => {
  it('entitlements show used and limit for agents, bases, widgets and tokens', async () => {
    const t = await newTenant({ planType: 2, maxAgents: 4, maxKnowledgeBases: 3, maxTokensPerMonth: 1000 });
    const token = await tokenFor({ tenantId: t });
    // Not sent to review: its evaluation would spend tokens of the month.
    const prompt = await newPrompt(token, { active: false });
    await invoke('POST', AGENTS, { token, body: { name: 'One', promptId: prompt } });
    await newBase(token);
    const res = await invoke('GET', '/api/ai/entitlements', { token });
    expect(res).toAnswer(200);
    expect(res.json.result).toEqual({
      aiAgentsEnabled: true,
      agents: { used: 1, limit: 4 },
      knowledgeBases: { used: 1, limit: 3 },
      widgetIntegrations: { used: 0, limit: 5 },
      tokensPerMonth: { used: 0, limit: 1000 },
    });
    expect(await invoke('GET', '/api/ai/entitlements', {})).toAnswer(401);
  });

  it('models lists the active catalog models with prices and context window', async () => {
    const res = await invoke('GET', '/api/ai/models', { token: memberA });
    expect(res).toAnswer(200);
    const chat = res.json.result.find((m: { id: string }) => m.id === LOCAL_MODEL_IDS.chat);
    expect(chat).toMatchObject({ kind: 'chat' });
    expect(Object.keys(chat).sort()).toEqual(
      ['contextWindow', 'id', 'inputPricePerMillion', 'kind', 'name', 'outputPricePerMillion'].sort(),
    );
  });
});

describe('AI agent stats', () => {
  const send = (body: unknown) =>
    invoke('POST', '/api/analytics/events', { body, headers: { 'x-internal-api-key': INTERNAL_KEY } });

  it("sums the agent's own day aggregates; zeros for an agent with none", async () => {
    const a = await create();
    const other = await create();
    const empty = await owner.get(`/${a.id}/stats?startDate=2026-05-01&endDate=2026-05-31`);
    expect(empty).toAnswer(200);
    expect(empty.json.result).toMatchObject({
      conversations: 0,
      resolutionRatePercent: 0,
      escalationRatePercent: 0,
      csatScore: 0,
      tokensUsed: 0,
      costUsd: 0,
    });
    const conv = (agentId: string, day: string, o: Record<string, unknown>) => ({
      id: crypto.randomUUID(),
      tenantId: tenantA,
      agentId,
      startedAt: `${day}T10:00:00.000Z`,
      durationSeconds: 60,
      resolved: false,
      escalated: false,
      escalationReason: null,
      csat: null,
      ...o,
    });
    const call = (agentId: string, tokens: number, costUsd: number) => ({
      id: crypto.randomUUID(),
      tenantId: tenantA,
      model: 'local-chat',
      agentId,
      tokens,
      costUsd,
      latencyMs: 100,
      isError: false,
      timestamp: '2026-05-03T10:00:00.000Z',
    });
    const res = await send({
      conversations: [
        conv(a.id, '2026-05-02', { resolved: true, csat: 5 }),
        conv(a.id, '2026-05-03', { escalated: true, escalationReason: 'angry', csat: 2 }),
        conv(a.id, '2026-05-03', { resolved: true }),
        conv(a.id, '2026-05-04', { resolved: true }),
        conv(other.id, '2026-05-03', { resolved: true, csat: 1 }),
        conv(a.id, '2026-06-10', { resolved: true }),
      ],
      llmCalls: [call(a.id, 100, 0.25), call(a.id, 50, 0.5), call(other.id, 999, 9)],
    });
    expect(res).toAnswer(200);
    const s = (await owner.get(`/${a.id}/stats?startDate=2026-05-01&endDate=2026-05-31`)).json.result;
    expect(s).toEqual({
      startDate: '2026-05-01',
      endDate: '2026-05-31',
      conversations: 4,
      resolutionRatePercent: 75,
      escalationRatePercent: 25,
      csatScore: 3.5,
      tokensUsed: 150,
      costUsd: 0.75,
      approvals: { requested: 0, approved: 0, rejected: 0, expired: 0, meanSecondsToDecision: 0 },
      capsReached: { dailyTokens: 0, visitorTokens: 0, sessionTurns: 0, userDailyTokens: 0 },
      declinedOffTopic: 0,
    });
    expect(await owner.get(`/${a.id}/stats?startDate=2026-05-10&endDate=2026-05-01`)).toAnswer(400);
  });

  it('a date that is not one, an empty end or a repeated start is 400 VALIDATION_ERROR naming the field', async () => {
    const a = await create();
    const cases = [
      ['startDate=abc', 'query.startDate'],
      ['endDate=', 'query.endDate'],
      ['startDate=2026-05-01&startDate=2026-05-02', 'query.startDate'],
      ['startDate=2026-02-30&endDate=2026-03-01', 'query.startDate'],
    ] as const;
    for (const [query, path] of cases) {
      const res = await owner.get(`/${a.id}/stats?${query}`);
      expect([res.status, res.json.error?.code], `${query}: ${res.text}`).toEqual([400, 'VALIDATION_ERROR']);
      const paths = res.json.error.details.map((d: { path: string }) => d.path);
      expect(new Set(paths), query).toEqual(new Set([path]));
    }
  });
});
