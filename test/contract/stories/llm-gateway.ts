import { expect } from 'vitest';
import { adminWithTenant, ok, type Story } from '../story.ts';

/**
 * The gateway's management routes through the typed client: a SystemAdmin adds a catalog model, a
 * tenant gets a key (secret once), the key lists its models on /v1 (OpenAI's list, a raw answer),
 * the key is revoked, and the usage route shows the month against the allowance.
 */
export const story: Story = async (ctx) => {
  const { baseUrl, tag } = ctx;
  const { admin, tenant } = await adminWithTenant(ctx, 'gw', { planType: 2 });
  expect(tenant.maxTokensPerMonth).toBeGreaterThan(0);
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
