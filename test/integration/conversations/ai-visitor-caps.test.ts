import { beforeAll, describe, expect, it } from 'vitest';
import { AGENTS } from '#test/support/agents.ts';
import { publishedWidget, session, WIDGET } from '#test/support/conversations.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { addText, newBase, settled, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * A scripted visitor against each cap a tenant sets on anonymous traffic: the widget's tokens per
 * day, a visitor's tokens per day (per session and per source address), a session's turns; and an
 * agent that answers only from its knowledge. Past a cap nothing reaches a model: the tenant's
 * month allowance is read before and after.
 */
useKnowledgeStandIns();

let t: string;
let owner: string;

beforeAll(async () => {
  t = await newTenant({ planType: 2, maxAgents: 20, maxWidgetIntegrations: 40, maxKnowledgeBases: 10 });
  owner = await tokenFor({ tenantId: t });
});

const tokensUsed = async () =>
  (await invoke('GET', '/api/llm-gateway/usage', { token: owner })).json.result.tokensUsed as number;
const chatCalls = async () => {
  const usage = (await invoke('GET', '/api/llm-gateway/usage', { token: owner })).json.result;
  return (usage.models as { model: string; requests: number }[])
    .filter((m) => m.model === 'local-chat')
    .reduce((n, m) => n + m.requests, 0);
};
const setLimits = async (widgetId: string, limits: Record<string, number | null>) => {
  const res = await invoke('PUT', `/api/ai/widgets/${widgetId}`, { token: owner, body: { limits } });
  expect(res).toAnswer(200);
  return res.json.result;
};
const stats = async (agentId: string) => {
  const res = await invoke('GET', `${AGENTS}/${agentId}/stats`, { token: owner });
  expect(res).toAnswer(200);
  return res.json.result;
};
const sendFrom = (token: string, ip: string, text: string) =>
  invoke('POST', `${WIDGET}/messages`, { body: { text }, headers: { 'x-widget-session': token }, ip });

function expectCap(res: Awaited<ReturnType<typeof invoke>>, limit: string) {
  expect(res).toAnswer(429);
  expect(res.json.error).toMatchObject({
    code: 'WIDGET_LIMIT_REACHED',
    message: expect.stringMatching(/come back later/),
    details: { limit },
  });
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}

describe('widget caps', () => {
  it('a widget shows its caps (none by default); a cap of 0 or a fraction is 400; null lifts one', async () => {
    const w = await publishedWidget(owner);
    const got = await invoke('GET', `${AGENTS}/${w.agentId}/widgets`, { token: owner });
    expect(got.json.result[0].limits).toEqual({ dailyTokens: null, visitorTokens: null, sessionTurns: null });
    for (const bad of [{ sessionTurns: 0 }, { dailyTokens: 1.5 }, { visitorTokens: -1 }]) {
      const res = await invoke('PUT', `/api/ai/widgets/${w.widgetId}`, { token: owner, body: { limits: bad } });
      expect(res, JSON.stringify(bad)).toAnswer(400);
    }
    expect((await setLimits(w.widgetId, { sessionTurns: 3, dailyTokens: 500 })).limits).toEqual({
      dailyTokens: 500,
      visitorTokens: null,
      sessionTurns: 3,
    });
    expect((await setLimits(w.widgetId, { dailyTokens: null })).limits).toEqual({
      dailyTokens: null,
      visitorTokens: null,
      sessionTurns: 3,
    });
  });

  it('a session gets its turns, then a kind 429 that stores nothing and spends nothing; a new session goes on', async () => {
    const w = await publishedWidget(owner);
    await setLimits(w.widgetId, { sessionTurns: 2 });
    const visitor = await session(w.widgetKey);
    expect(await visitor.send('one')).toAnswer(200);
    expect(await visitor.send('two')).toAnswer(200);
    const before = await tokensUsed();
    const refused = await visitor.send('three');
    expectCap(refused, 'sessionTurns');
    expect(await tokensUsed()).toBe(before);
    const texts = ((await visitor.messages()).json.result as { text: string }[]).map((m) => m.text);
    expect(texts).not.toContain('three');
    expect((await stats(w.agentId)).capsReached).toMatchObject({ sessionTurns: 1 });
    expect(await (await session(w.widgetKey)).send('fresh start')).toAnswer(200);
  });

  it("a visitor's tokens count per session and per source address, each alone", async () => {
    const w = await publishedWidget(owner);
    await setLimits(w.widgetId, { visitorTokens: 1 });
    const first = await session(w.widgetKey);
    expect(await sendFrom(first.token, '10.91.0.1', 'hello there')).toAnswer(200);
    // The same session from another address, and another session from the same address: both spent.
    expectCap(await sendFrom(first.token, '10.91.0.2', 'again'), 'visitorTokens');
    const second = await session(w.widgetKey);
    expectCap(await sendFrom(second.token, '10.91.0.1', 'me again'), 'visitorTokens');
    // Someone else, elsewhere, is not.
    expect(await sendFrom(second.token, '10.91.0.3', 'a new visitor')).toAnswer(200);
  });

  it("the widget's daily tokens stop every session once spent; the tenant's allowance stays as it was", async () => {
    const w = await publishedWidget(owner);
    await setLimits(w.widgetId, { dailyTokens: 1 });
    expect(await (await session(w.widgetKey)).send('first of the day')).toAnswer(200);
    const before = await tokensUsed();
    for (let i = 0; i < 3; i++) expectCap(await (await session(w.widgetKey)).send(`visitor ${i}`), 'dailyTokens');
    expect(await tokensUsed()).toBe(before);
    expect((await stats(w.agentId)).capsReached).toMatchObject({ dailyTokens: 3 });
  });

  it('a conversation a person has is not capped: the message reaches the inbox', async () => {
    const w = await publishedWidget(owner);
    await setLimits(w.widgetId, { sessionTurns: 1 });
    const visitor = await session(w.widgetKey);
    expect(await visitor.send('one')).toAnswer(200);
    expect(await visitor.escalate('a person please')).toAnswer(200);
    const res = await visitor.send('are you there?');
    expect(res).toAnswer(200);
    expect(res.json.result).toMatchObject({ message: null, escalated: true });
  });
});

describe('an agent that answers only from its knowledge', () => {
  let kbId: string;
  beforeAll(async () => {
    kbId = (await newBase(owner)).id;
    const doc = await addText(owner, kbId, 'Bakery', 'Our bakery proofs sourdough loaves for sixteen hours.');
    expect(doc).toAnswer(202);
    await settled(owner, kbId, doc.json.result.id);
  });

  it('declines an off-topic question with its reply and calls no chat model; answers what its sources cover', async () => {
    const reply = 'I can help with our bakery only.';
    const w = await publishedWidget(owner, {
      knowledgeBaseIds: [kbId],
      answerOnlyFromKnowledge: true,
      noAnswerReply: reply,
      escalation: { enabled: false, noAnswerThreshold: 0.3 },
    });
    const agent = await invoke('GET', `${AGENTS}/${w.agentId}`, { token: owner });
    expect(agent.json.result).toMatchObject({ answerOnlyFromKnowledge: true, noAnswerReply: reply });
    const visitor = await session(w.widgetKey);
    const before = await chatCalls();
    const off = await visitor.send('volcano magma chamber eruption');
    expect(off).toAnswer(200);
    expect(off.json.result).toMatchObject({ message: { text: reply }, citations: [], escalated: false });
    expect(await chatCalls()).toBe(before);
    expect((await stats(w.agentId)).declinedOffTopic).toBe(1);
    const on = await visitor.send('how long do you proof sourdough loaves?');
    expect(on.json.result.message.text).toBe('You said: how long do you proof sourdough loaves?');
    expect(await chatCalls()).toBeGreaterThan(before);
  });

  it('with escalation on, the off-topic question goes to a person; without a reply set, a default one', async () => {
    const w = await publishedWidget(owner, {
      knowledgeBaseIds: [kbId],
      answerOnlyFromKnowledge: true,
      escalation: { enabled: true, noAnswerThreshold: 0.3 },
    });
    const res = await (await session(w.widgetKey)).send('volcano magma chamber eruption');
    expect(res.json.result).toMatchObject({
      message: { text: expect.stringMatching(/could not find this/) },
      escalated: true,
    });
  });
});
