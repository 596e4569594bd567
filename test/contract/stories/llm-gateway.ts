import { expect } from 'vitest';
import { makeClient, ok, type Story } from '../story.ts';

/**
 * The gateway's management routes through the typed client: a SystemAdmin adds a catalog model, a
 * tenant gets a key (secret once), the key lists its models on /v1 (OpenAI's list, a raw answer),
 * the key is revoked, and the usage route shows the month against the allowance.
 */
export const story: Story = async ({ client, baseUrl, adminEmail, adminPassword, tag }) => {
  const session = ok(
    'sign-in',
    await client.POST('/api/auth/login', { body: { email: adminEmail, password: adminPassword } }),
  );
  const admin = makeClient(baseUrl, { authorization: `Bearer ${session.result.accessToken}` });
  const modelId = crypto.randomUUID();
  const model = ok(
    'catalog put',
    await admin.PUT('/api/llm-gateway/models/{modelId}', {
      params: { path: { modelId } },
      body: {
        name: `typed-${tag}`,
        provider: 'local',
        providerModel: 'echo',
        kind: 'chat',
        inputPricePerMillion: 1,
        outputPricePerMillion: 2,
        contextWindow: 8000,
        fallbackModelIds: [],
        isActive: true,
      },
    }),
  ).result;
  expect(model.id).toBe(modelId);

  const tenant = ok(
    'tenant',
    await admin.POST('/api/tenants', {
      body: {
        slug: `gw-${tag}`,
        name: `Gateway ${tag}`,
        email: `o-${tag}@typed.example`,
        planType: 2,
        maxAgents: 1,
        maxKnowledgeBases: 1,
        maxSeats: 5,
      },
    }),
  ).result;
  expect(tenant.maxTokensPerMonth).toBeGreaterThan(0);
  const key = ok(
    'key create',
    await admin.POST('/api/llm-gateway/keys', {
      body: { name: 'typed', models: [model.name], tenantId: tenant.id },
    }),
  ).result;
  expect(key.key.startsWith('gk_')).toBe(true);

  const models = await fetch(`${baseUrl}/api/llm-gateway/v1/models`, {
    headers: { authorization: `Bearer ${key.key}` },
  });
  expect(((await models.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual([model.name]);

  const keys = ok(
    'key list',
    await admin.GET('/api/llm-gateway/keys', { params: { query: { tenantId: tenant.id } } }),
  ).result;
  expect(keys.items.map((k) => k.id)).toEqual([key.id]);
  const revoked = await admin.DELETE('/api/llm-gateway/keys/{keyId}', {
    params: { path: { keyId: key.id }, query: { tenantId: tenant.id } },
  });
  expect(revoked.response.status).toBe(204);

  const usage = ok(
    'usage',
    await admin.GET('/api/llm-gateway/usage', { params: { query: { tenantId: tenant.id } } }),
  ).result;
  expect(usage.tokenAllowance).toBe(tenant.maxTokensPerMonth);
  expect(usage.tokensUsed).toBe(0);
};
