import { beforeAll, describe, expect, it } from 'vitest';
import { publishedWidget, session, WIDGET, widgetIp } from '#test/support/conversations.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * The widget's caps hold under parallel messages: 20 sent at once against DynamoDB Local, each cap
 * is passed by at most one turn in total (a session's turn cap not at all), the rest answer the
 * documented 429, and nothing is lost or answered 500.
 */
let owner: string;

beforeAll(async () => {
  const t = await newTenant({ planType: 2, maxAgents: 20, maxWidgetIntegrations: 40 });
  owner = await tokenFor({ tenantId: t });
});

const N = 20;
const TEXT = 'Where is my parcel? It was due on Monday.';

const setLimits = async (widgetId: string, limits: Record<string, number | null>) => {
  const res = await invoke('PUT', `/api/ai/widgets/${widgetId}`, { token: owner, body: { limits } });
  expect(res).toAnswer(200);
};
const tokensUsed = async () =>
  (await invoke('GET', '/api/llm-gateway/usage', { token: owner })).json.result.tokensUsed as number;
const sendFrom = (token: string, ip: string, text = TEXT) =>
  invoke('POST', `${WIDGET}/messages`, { body: { text }, headers: { 'x-widget-session': token }, ip });

type Res = Awaited<ReturnType<typeof invoke>>;
/** Every answer is a 200 or the cap's 429; returns how many were answered. */
function tally(all: Res[], limit: string) {
  for (const r of all) {
    if (r.status === 200) continue;
    expect(r).toAnswer(429, 'WIDGET_LIMIT_REACHED');
    expect(r.json.error.details).toEqual({ limit });
  }
  return all.filter((r) => r.status === 200).length;
}

/** What one turn of TEXT spends (the local model is deterministic): measured on a widget without caps. */
async function oneTurnTokens() {
  const w = await publishedWidget(owner);
  const before = await tokensUsed();
  expect(await (await session(w.widgetKey)).send(TEXT)).toAnswer(200);
  return (await tokensUsed()) - before;
}

let perTurn: number;
beforeAll(async () => {
  perTurn = await oneTurnTokens();
  expect(perTurn).toBeGreaterThan(0);
});

describe('caps under 20 parallel messages', () => {
  it('a session with sessionTurns 2 answers exactly 2; the others are refused and nothing of theirs is stored', async () => {
    const w = await publishedWidget(owner);
    await setLimits(w.widgetId, { sessionTurns: 2 });
    const s = await session(w.widgetKey);
    const all = await Promise.all(Array.from({ length: N }, (_, i) => s.send(`${TEXT} (${i})`)));
    expect(tally(all, 'sessionTurns')).toBe(2);
    const stored = (await s.messages()).json.result as { role: string }[];
    expect(stored.filter((m) => m.role === 'visitor')).toHaveLength(2);
    expect(stored.filter((m) => m.role === 'agent')).toHaveLength(2);
  });

  it("the widget's dailyTokens: 20 sessions at once spend at most the cap plus one turn", async () => {
    const w = await publishedWidget(owner);
    const cap = perTurn * 3;
    await setLimits(w.widgetId, { dailyTokens: cap });
    const sessions = await Promise.all(Array.from({ length: N }, () => session(w.widgetKey)));
    const before = await tokensUsed();
    const all = await Promise.all(sessions.map((s) => s.send(TEXT)));
    const answered = tally(all, 'dailyTokens');
    expect(answered).toBeGreaterThanOrEqual(3);
    expect(answered).toBeLessThanOrEqual(4);
    expect((await tokensUsed()) - before).toBeLessThanOrEqual(cap + perTurn);
  });

  it("a visitor's visitorTokens: 20 sessions from one address at once spend at most the cap plus one turn", async () => {
    const w = await publishedWidget(owner);
    const cap = perTurn * 2;
    await setLimits(w.widgetId, { visitorTokens: cap });
    const sessions = await Promise.all(Array.from({ length: N }, () => session(w.widgetKey)));
    const ip = widgetIp();
    const before = await tokensUsed();
    const all = await Promise.all(sessions.map((s) => sendFrom(s.token, ip)));
    const answered = tally(all, 'visitorTokens');
    expect(answered).toBeGreaterThanOrEqual(2);
    expect(answered).toBeLessThanOrEqual(3);
    expect((await tokensUsed()) - before).toBeLessThanOrEqual(cap + perTurn);
  });

  it('one session, 20 messages at once, under visitorTokens: at most the cap plus one turn', async () => {
    const w = await publishedWidget(owner);
    const cap = perTurn * 2;
    await setLimits(w.widgetId, { visitorTokens: cap });
    const s = await session(w.widgetKey);
    const before = await tokensUsed();
    const all = await Promise.all(Array.from({ length: N }, () => s.send(TEXT)));
    const answered = tally(all, 'visitorTokens');
    expect(answered).toBeLessThanOrEqual(3);
    expect((await tokensUsed()) - before).toBeLessThanOrEqual(cap + perTurn);
  });
});
