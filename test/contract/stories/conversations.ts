import { expect } from 'vitest';
import { adminWithTenant, approvedPrompt, makeClient, ok, type Story } from '../story.ts';

/**
 * A widget conversation through the typed client: session from an allowed origin, a visitor message,
 * the inbox list and detail, a person's reply the widget reads, status, transcript, rating, erase.
 */
export const story: Story = async (ctx) => {
  const { admin, tenant, query } = await adminWithTenant(ctx, 'conversations', { planType: 2, maxAgents: 2 });
  const { prompt } = await approvedPrompt(admin, tenant.id);
  const agent = ok(
    'agent',
    await admin.POST('/api/ai/agents', { body: { name: 'Helper', promptId: prompt.id, tenantId: tenant.id } }),
  ).result;
  ok(
    'publish',
    await admin.POST('/api/ai/agents/{agentId}/publish', { params: { path: { agentId: agent.id }, query } }),
  );
  const widget = ok(
    'widget',
    await admin.POST('/api/ai/agents/{agentId}/widgets', {
      params: { path: { agentId: agent.id }, query },
      body: { name: 'Site', allowedOrigins: ['https://shop.example.com'] },
    }),
  ).result;

  const page = makeClient(ctx.baseUrl, { origin: 'https://shop.example.com' });
  const started = ok(
    'session',
    await page.POST('/api/conversations/widget/sessions', {
      body: { widgetKey: widget.widgetKey, visitor: { name: 'Ada', email: null }, locale: 'en' },
    }),
  ).result;
  const visitor = makeClient(ctx.baseUrl, { 'x-widget-session': started.sessionToken });
  const sent = ok('send', await visitor.POST('/api/conversations/widget/messages', { body: { text: 'hello' } }));
  // The document lists server-sent events beside JSON; without `Accept: text/event-stream` the answer is JSON.
  if (typeof sent === 'string') throw new Error(`send: events without asking for them: ${sent.slice(0, 200)}`);
  const answer = sent.result;
  expect(answer.message?.text).toBe('You said: hello');

  const list = ok(
    'list',
    await admin.GET('/api/conversations', { params: { query: { ...query, channel: 'widget' } } }),
  ).result;
  expect(list.items.map((c) => c.id)).toEqual([started.conversationId]);
  const path = { conversationId: started.conversationId };
  const detail = ok(
    'detail',
    await admin.GET('/api/conversations/{conversationId}', { params: { path, query } }),
  ).result;
  expect(detail.messages.map((m) => m.role)).toEqual(['visitor', 'agent']);

  const reply = ok(
    'reply',
    await admin.POST('/api/conversations/{conversationId}/messages', {
      params: { path, query },
      body: { text: 'Hi!' },
    }),
  ).result;
  const seen = ok('poll', await visitor.GET('/api/conversations/widget/messages', { params: { query: {} } })).result;
  expect(seen.at(-1)?.id).toBe(reply.id);
  ok('escalate', await visitor.POST('/api/conversations/widget/escalate', { body: { reason: 'a person please' } }));
  const resolved = ok(
    'status',
    await admin.PUT('/api/conversations/{conversationId}/status', {
      params: { path, query },
      body: { status: 'Resolved', reason: null },
    }),
  ).result;
  expect(resolved.status).toBe('Resolved');
  const md = ok(
    'transcript',
    await admin.GET('/api/conversations/{conversationId}/transcript', {
      params: { path, query: { ...query, format: 'markdown' } },
    }),
  ).result;
  expect(md.content).toContain('You said: hello');
  const rated = ok(
    'feedback',
    await visitor.POST('/api/conversations/widget/feedback', { body: { csat: 5, comment: null } }),
  ).result;
  expect(rated.status).toBe('Closed');
  const erased = await admin.DELETE('/api/conversations/{conversationId}', { params: { path, query } });
  expect(erased.response.status).toBe(204);
};
