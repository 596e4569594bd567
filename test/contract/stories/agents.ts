import { expect } from 'vitest';
import { adminWithTenant, approvedPrompt, ok, type Story } from '../story.ts';

/** An agent from a prompt with an Active version: published, a widget with its embed snippet, a channel, entitlements. */
export const story: Story = async (ctx) => {
  const { admin, tenant, query } = await adminWithTenant(ctx, 'agents');
  const { prompt, pv } = await approvedPrompt(admin, tenant.id);

  const agent = ok(
    'agent',
    await admin.POST('/api/ai/agents', { body: { name: 'Helper', promptId: prompt.id, tenantId: tenant.id } }),
  ).result;
  expect(agent.status).toBe('Draft');
  const path = { agentId: agent.id };
  const published = ok(
    'publish',
    await admin.POST('/api/ai/agents/{agentId}/publish', { params: { path, query } }),
  ).result;
  expect(published).toMatchObject({ status: 'Published', publishedVersion: 1, promptVersionId: pv.versionId });
  const versions = ok(
    'versions',
    await admin.GET('/api/ai/agents/{agentId}/versions', { params: { path, query } }),
  ).result;
  expect(versions.items.map((v) => v.version)).toEqual([1]);

  const widget = ok(
    'widget',
    await admin.POST('/api/ai/agents/{agentId}/widgets', {
      params: { path, query },
      body: { name: 'Site', allowedOrigins: ['https://shop.example.com'] },
    }),
  ).result;
  const embed = ok(
    'embed',
    await admin.GET('/api/ai/widgets/{widgetId}/embed', { params: { path: { widgetId: widget.id }, query } }),
  ).result;
  expect(embed.snippet).toContain(widget.widgetKey);

  const channel = ok(
    'channel',
    await admin.POST('/api/ai/channels', {
      body: { type: 'telegram', name: 'Bot', agentId: agent.id, secrets: { 'bot-token': 'x' }, tenantId: tenant.id },
    }),
  ).result;
  expect(channel.secrets).toEqual({ 'secret-token': false, 'bot-token': true });

  const ent = ok('entitlements', await admin.GET('/api/ai/entitlements', { params: { query } })).result;
  expect(ent).toMatchObject({
    aiAgentsEnabled: true,
    agents: { used: 1, limit: 1 },
    widgetIntegrations: { used: 1, limit: 1 },
  });
};
