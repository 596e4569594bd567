import { expect } from 'vitest';
import { adminWithTenant, makeClient, ok, type Story } from '../story.ts';

/** A tenant's prompt from draft to rendering, a tool through approval, and usage analytics. */
export const story: Story = async (ctx) => {
  const { baseUrl, internalApiKey, tag } = ctx;
  const { admin, tenant } = await adminWithTenant(ctx, 'ai');

  const prompt = ok(
    'prompt',
    await admin.POST('/api/prompts', { body: { title: 'Greeter', content: 'Hello {{name}}', tenantId: tenant.id } }),
  ).result;
  expect(prompt.placeholders).toEqual(['name']);
  const path = { promptId: prompt.id, versionId: prompt.versions[0]!.id };
  await admin.PUT('/api/prompts/{promptId}/versions/{versionId}/review', { params: { path } });
  await admin.PUT('/api/prompts/{promptId}/versions/{versionId}/approve', { params: { path } });
  const rendered = ok(
    'render',
    await admin.POST('/api/prompts/{promptId}/render', {
      params: { path: { promptId: prompt.id } },
      body: { variables: { name: 'Ada' } },
    }),
  ).result;
  expect(rendered.text).toBe('Hello Ada');
  const versions = ok(
    'versions',
    await admin.GET('/api/prompts/{promptId}/versions', { params: { path: { promptId: prompt.id } } }),
  ).result;
  expect(versions.items[0]!.status).toBe('Active');

  const builtIn = ok(
    'built-in',
    await admin.GET('/api/tools/built-in', { params: { query: { pageSize: 50 } } }),
  ).result;
  const dbQuery = builtIn.items.find((t) => t.code === 'db_query')!;
  const tool = ok(
    'select',
    await admin.POST('/api/tools/built-in/select', { body: { baseToolId: dbQuery.id, tenantId: tenant.id } }),
  ).result;
  const toolPath = { path: { toolId: tool.id } };
  // The connection string is given as a value, kept as the tenant's secret; reads show its reference only.
  const configured = ok(
    'config',
    await admin.PUT('/api/tools/{toolId}/config', {
      params: toolPath,
      body: { schema: { connectionString: `postgres://reader:${tag}@orders-db/app`, tables: ['orders'] } },
    }),
  ).result;
  expect(configured.schema.connectionStringSet).toBe(true);
  expect(configured.schema.connectionString).toMatch(new RegExp(`^vault://tenants/${tenant.id}/tools/${tool.id}/`));
  const approved = ok('approve', await admin.PUT('/api/tools/{toolId}/approve', { params: toolPath })).result;
  expect(approved.status).toBe('APPROVED');
  const http = builtIn.items.find((t) => t.code === 'http_request')!;
  const caller = ok(
    'http tool',
    await admin.POST('/api/tools', {
      body: {
        displayName: 'Status API',
        baseToolId: http.id,
        configParams: { allowedHosts: ['API.example.com'] },
        tenantId: tenant.id,
      },
    }),
  ).result;
  expect(caller.configParams.allowedHosts).toEqual(['api.example.com']);
  const hosts = ok(
    'params',
    await admin.PUT('/api/tools/{toolId}/config-params', {
      params: { path: { toolId: caller.id } },
      body: { allowedHosts: ['status.example.com'], allowedRecipients: [] },
    }),
  ).result;
  expect(hosts).toMatchObject({ allowedHosts: ['status.example.com'], allowedRecipients: [] });

  const internal = makeClient(baseUrl, { 'x-internal-api-key': internalApiKey });
  const day = '2026-02-03';
  ok(
    'events',
    await internal.POST('/api/analytics/events', {
      body: {
        llmCalls: [
          {
            id: `${tag}-1`,
            tenantId: tenant.id,
            model: 'gpt-4.1',
            tokens: 120,
            costUsd: 0.002,
            latencyMs: 850,
            isError: false,
            timestamp: `${day}T10:00:00.000Z`,
          },
        ],
        conversations: [],
      },
    }),
  );
  const llm = ok(
    'llm',
    await admin.GET('/api/analytics/llm', { params: { query: { tenantId: tenant.id, startDate: day, endDate: day } } }),
  ).result;
  expect(llm).toMatchObject({ totalRequests: 1, totalTokensUsed: 120 });
};
