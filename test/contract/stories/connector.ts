import { expect } from 'vitest';
import { adminWithTenant, approvedPrompt, ok, type Story } from '../story.ts';

/** A Telegram connection of a published agent; a proactive message scheduled, listed, read and cancelled. */
export const story: Story = async (ctx) => {
  const { admin, tenant, query } = await adminWithTenant(ctx, 'connector');
  const { prompt } = await approvedPrompt(admin, tenant.id);
  const agent = ok(
    'agent',
    await admin.POST('/api/ai/agents', { body: { name: 'Helper', promptId: prompt.id, tenantId: tenant.id } }),
  ).result;
  const channel = ok(
    'channel',
    await admin.POST('/api/ai/channels', {
      body: {
        type: 'telegram',
        name: 'Bot',
        agentId: agent.id,
        secrets: { 'bot-token': '123456:typed-bot' },
        tenantId: tenant.id,
      },
    }),
  ).result;

  const scheduledAt = new Date(Date.now() + 3600_000).toISOString();
  const created = ok(
    'proactive',
    await admin.POST('/api/proactive-messages', {
      body: { channelId: channel.id, recipient: '5151', text: 'See you tomorrow', scheduledAt, tenantId: tenant.id },
    }),
  ).result;
  expect(created).toMatchObject({ status: 'Scheduled', channelType: 'telegram', scheduledAt });
  const path = { messageId: created.id };
  const list = ok(
    'list',
    await admin.GET('/api/proactive-messages', { params: { query: { ...query, status: 'Scheduled' } } }),
  ).result;
  expect(list.items.map((m) => m.id)).toEqual([created.id]);
  const cancelled = await admin.DELETE('/api/proactive-messages/{messageId}', { params: { path, query } });
  expect(cancelled.response.status).toBe(204);
  const read = ok('read', await admin.GET('/api/proactive-messages/{messageId}', { params: { path, query } })).result;
  expect(read.status).toBe('Cancelled');
};
