import { beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_ROLE_PERMISSIONS } from '#shared/auth/permissions.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { ip, newKey, userSays, v1 } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/** Who may spend a tenant's models: a user's own sign-in needs `ai:use`. */
let tenant: string;
beforeAll(async () => {
  tenant = await newTenant({ planType: 2 });
});

describe("a user's access token on /v1", () => {
  const ask = { model: 'local-chat', messages: userSays('hi') };

  it('is refused without ai:use (403 in OpenAI shape), on every /v1 route', async () => {
    const member = await tokenFor({ tenantId: tenant, role: 'TenantMember' });
    const refused = await v1('POST', '/chat/completions', member, { body: ask });
    expect(refused).toAnswer(403);
    expect(refused.json).toEqual({
      error: { message: expect.any(String), type: 'permission_error', code: 'forbidden', param: null },
    });
    expect(await v1('POST', '/embeddings', member, { body: { model: 'local-embed', input: 'x' } })).toAnswer(403);
    expect(await v1('GET', '/models', member)).toAnswer(403);
  });

  it('is answered with ai:use (a member granted it, and the tenant owner who holds it)', async () => {
    const granted = await tokenFor({
      tenantId: tenant,
      role: 'TenantMember',
      permissions: [...SYSTEM_ROLE_PERMISSIONS.TenantMember, 'ai:use'],
    });
    const res = await v1('POST', '/chat/completions', granted, { body: ask });
    expect(res).toAnswer(200);
    expect(res.json.choices[0].message.content).toBe('You said: hi');
    const owner = await tokenFor({ tenantId: tenant });
    expect(await v1('POST', '/chat/completions', owner, { body: ask })).toAnswer(200);
  });
});

describe("a key's model list", () => {
  const flaky = { model: 'local-flaky', messages: userSays('hi') };

  it('bounds the fallbacks: a key allowed only local-flaky is not answered by local-chat (503, nothing billed)', async () => {
    const owner = await tokenFor({ tenantId: await newTenant({ planType: 2 }) });
    const { key, id } = await newKey(owner, { models: ['local-flaky'] });
    const res = await v1('POST', '/chat/completions', key, { body: flaky });
    expect(res).toAnswer(503, 'upstream_error');
    const streamed = await v1('POST', '/chat/completions', key, { body: { ...flaky, stream: true } });
    expect(streamed).toAnswer(503);
    const usage = (await invoke('GET', '/api/llm-gateway/usage', { token: owner, ip: ip() })).json.result;
    expect(usage.keys.find((k: { keyId: string }) => k.keyId === id)).toMatchObject({ spendUsd: 0 });
    expect(usage.models.some((m: { model: string }) => m.model === 'local-chat')).toBe(false);
  });

  it('a key that allows the fallback too is answered by it', async () => {
    const owner = await tokenFor({ tenantId: tenant });
    const { key } = await newKey(owner, { models: ['local-flaky', 'local-chat'] });
    const res = await v1('POST', '/chat/completions', key, { body: flaky });
    expect(res).toAnswer(200);
    expect(res.json.model).toBe('local-chat');
  });
});
