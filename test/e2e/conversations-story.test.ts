import { describe, expect, it } from 'vitest';
import { api, e2e } from '#test/support/e2e.ts';
import { publishedAgentWithKnowledge } from '#test/support/e2e-agents.ts';

/**
 * A visitor's conversation over HTTP against the local server: widget session
 * -> three turns with citations (the last streamed, arriving in pieces) -> escalation -> a staff reply
 * the widget sees -> resolve -> CSAT -> support analytics and the agent's stats show it.
 */
const ORIGIN = 'https://shop.story.example';

describe('conversation story', () => {
  it('runs from a widget session to support analytics', async () => {
    const { as, agentId, widgetKey } = await publishedAgentWithKnowledge({
      tenantName: 'Story Shop',
      welcomeMessage: 'Hello! Ask me about returns.',
      document: {
        title: 'Returns policy',
        text: 'Returns are accepted within 30 days of purchase with the receipt.\n\nShipping takes 3 to 5 working days.',
      },
      origin: ORIGIN,
    });

    // The visitor's session and three turns with citations.
    const started = await api('POST', '/api/conversations/widget/sessions', {
      headers: { origin: ORIGIN },
      body: { widgetKey, visitor: { name: 'Vera', email: null }, locale: 'en' },
    });
    expect(started).toAnswer(201);
    expect(started.json.result.agent).toEqual({ name: 'Shop helper', welcomeMessage: 'Hello! Ask me about returns.' });
    const { conversationId, sessionToken } = started.json.result;
    const visitor = { 'x-widget-session': sessionToken };
    const say = (text: string, key: string) =>
      api('POST', '/api/conversations/widget/messages', {
        headers: { ...visitor, 'idempotency-key': key },
        body: { text },
      });
    for (const [i, text] of ['how do returns work', 'returns within 30 days?'].entries()) {
      const turn = await say(text, `turn-${i}`);
      expect(turn).toAnswer(200);
      expect(turn.json.result.message.text).toBe(`You said: ${text}`);
      expect(turn.json.result.citations[0]).toMatchObject({ documentTitle: 'Returns policy' });
    }
    // The third streams: deltas arrive while the model writes, then the stored answer.
    const started3 = performance.now();
    const res = await fetch(`${e2e().baseUrl}/api/conversations/widget/messages`, {
      method: 'POST',
      headers: {
        ...visitor,
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'idempotency-key': 'turn-2',
      },
      // Longer than the leak guard's hold-back (40 characters), so most of the answer streams in pieces.
      body: JSON.stringify({
        text: 'what about the receipt for returns, and how many days until the refund reaches my card',
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const arrivals: { at: number; text: string }[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      arrivals.push({ at: performance.now() - started3, text: decoder.decode(chunk) });
    }
    const events = arrivals
      .map((a) => a.text)
      .join('')
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    const deltas = events.filter((e) => e.startsWith('{"delta"')).map((e) => JSON.parse(e).delta as string);
    expect(deltas.join('')).toBe(
      'You said: what about the receipt for returns, and how many days until the refund reaches my card',
    );
    expect(deltas.length).toBeGreaterThan(3);
    expect(arrivals.length).toBeGreaterThan(3);
    expect(arrivals.at(-1)!.at - arrivals[0]!.at).toBeGreaterThan(50);
    const final = JSON.parse(events.at(-2)!);
    expect(final.citations[0]).toMatchObject({ documentTitle: 'Returns policy' });
    expect(events.at(-1)).toBe('[DONE]');

    // Escalation, a staff reply the widget sees, resolve, rating.
    const escalated = await api('POST', '/api/conversations/widget/escalate', {
      headers: visitor,
      body: { reason: 'Wants a refund today' },
    });
    expect(escalated.json.result).toMatchObject({ status: 'Escalated', escalationReason: 'Wants a refund today' });
    const reply = await as('POST', `/api/conversations/${conversationId}/messages`, { text: 'Hi Vera, refund done.' });
    expect(reply).toAnswer(201);
    const seen = await api('GET', '/api/conversations/widget/messages', { headers: visitor });
    expect(seen.json.result.filter((m: { role: string }) => m.role === 'human')[0].text).toBe('Hi Vera, refund done.');
    expect(await as('PUT', `/api/conversations/${conversationId}/status`, { status: 'Resolved' })).toAnswer(200);
    const rated = await api('POST', '/api/conversations/widget/feedback', {
      headers: visitor,
      body: { csat: 4, comment: 'quick' },
    });
    expect(rated.json.result).toMatchObject({ status: 'Closed', csat: 4 });

    const detail = await as('GET', `/api/conversations/${conversationId}`);
    expect(detail.json.result).toMatchObject({ status: 'Closed', resolved: true, escalated: true, csat: 4 });
    expect(detail.json.result.messages.filter((m: { role: string }) => m.role === 'agent')).toHaveLength(3);
    const support = await as('GET', '/api/analytics/support');
    expect(support.json.result).toMatchObject({
      totalConversations: 1,
      resolutionRatePercent: 100,
      escalationRatePercent: 100,
      csatScore: 4,
      escalationReasons: [{ reason: 'Wants a refund today', count: 1, percent: 100 }],
    });
    expect(support.json.result.avgDurationMinutes).toBeGreaterThan(0);
    const stats = await as('GET', `/api/ai/agents/${agentId}/stats`);
    expect(stats.json.result).toMatchObject({ conversations: 1, csatScore: 4, escalationRatePercent: 100 });
    expect(stats.json.result.tokensUsed).toBeGreaterThan(0);
  });
});
