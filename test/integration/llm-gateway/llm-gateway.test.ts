import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_MODEL_IDS } from '#areas/llm-gateway/catalog.ts';
import { chat } from '#areas/llm-gateway/chat.ts';
import { gatewayKeys } from '#areas/llm-gateway/records.ts';
import { get } from '#shared/data/read.ts';
import { countTokens } from '#areas/llm-gateway/tokens.ts';
import { promptTokens } from '#areas/llm-gateway/prompt-tokens.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { ip, newKey, userSays, v1 } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

let tenant: string;
let owner: string;
beforeAll(async () => {
  tenant = await newTenant({ planType: 2 });
  owner = await tokenFor({ tenantId: tenant });
});

describe('chat completions through a gateway key', () => {
  it('answers by the local model rules, with usage counted by the tokenizer', async () => {
    const { key } = await newKey(owner);
    const res = await v1('POST', '/chat/completions', key, {
      body: { model: 'local-chat', messages: userSays('hello there') },
    });
    expect(res).toAnswer(200);
    expect(res.json.object).toBe('chat.completion');
    expect(res.json.model).toBe('local-chat');
    expect(res.json.choices[0].message.content).toBe('You said: hello there');
    expect(res.json.choices[0].finish_reason).toBe('stop');
    expect(res.json.usage.prompt_tokens).toBe(await promptTokens([{ role: 'user', content: 'hello there' }]));
    expect(res.json.usage.completion_tokens).toBe(await countTokens('You said: hello there'));
  });

  it('streams chunks ending with a usage chunk and [DONE]', async () => {
    const { key } = await newKey(owner);
    const res = await v1('POST', '/chat/completions', key, {
      body: {
        model: 'local-chat',
        messages: userSays('one two three'),
        stream: true,
        stream_options: { include_usage: true },
      },
    });
    expect(res).toAnswer(200);
    const events = res.text
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe('You said: one two three');
    expect(chunks.at(-1).usage.completion_tokens).toBe(await countTokens('You said: one two three'));
  });

  it("takes a special token's text (<|endoftext|>) in a message as text: counted, answered, embedded", async () => {
    const { key } = await newKey(owner);
    const said = 'what do <|im_start|> and <|endoftext|> mean?';
    const res = await v1('POST', '/chat/completions', key, { body: { model: 'local-chat', messages: userSays(said) } });
    expect(res).toAnswer(200);
    expect(res.json.choices[0].message.content).toBe(`You said: ${said}`);
    expect(res.json.usage.prompt_tokens).toBe(await promptTokens([{ role: 'user', content: said }]));
    const embedded = await v1('POST', '/embeddings', key, { body: { model: 'local-embed', input: said } });
    expect(embedded).toAnswer(200);
  });

  it('falls back from local-flaky to local-chat and bills local-chat', async () => {
    const ownerOfOne = await tokenFor({ tenantId: await newTenant({ planType: 2 }) });
    const { key, id } = await newKey(ownerOfOne);
    const res = await v1('POST', '/chat/completions', key, {
      body: { model: 'local-flaky', messages: userSays('hi') },
    });
    expect(res).toAnswer(200);
    expect(res.json.model).toBe('local-chat');
    // Billed: the use is recorded on local-chat at its prices ($1/$2 per million), not local-flaky's ($3/$6).
    const { prompt_tokens: p, completion_tokens: c } = res.json.usage;
    const usage = (await invoke('GET', '/api/llm-gateway/usage', { token: ownerOfOne, ip: ip() })).json.result;
    expect(usage.models).toEqual([
      { model: 'local-chat', requests: 1, promptTokens: p, completionTokens: c, spendUsd: expect.any(Number) },
    ]);
    expect(usage.models[0].spendUsd).toBeCloseTo((p * 1 + c * 2) / 1_000_000, 9);
    expect(usage.keys).toEqual([expect.objectContaining({ keyId: id, spendUsd: usage.models[0].spendUsd })]);
  });

  it('refuses an unknown key with invalid_api_key in OpenAI format', async () => {
    const res = await v1('POST', '/chat/completions', 'gk_nope', {
      body: { model: 'local-chat', messages: userSays('hi') },
    });
    expect(res).toAnswer(401, 'invalid_api_key');
  });
});

describe('tools', () => {
  const tools = [
    {
      type: 'function',
      function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    },
  ];
  it('calls a tool the user names with JSON arguments, then answers from its result', async () => {
    const { key } = await newKey(owner);
    const ask = [{ role: 'user', content: 'Use get_weather with {"city":"Oslo"} please' }];
    const first = await v1('POST', '/chat/completions', key, { body: { model: 'local-chat', messages: ask, tools } });
    expect(first).toAnswer(200);
    const choice = first.json.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls[0];
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Oslo"}' });
    const second = await v1('POST', '/chat/completions', key, {
      body: {
        model: 'local-chat',
        tools,
        messages: [...ask, choice.message, { role: 'tool', tool_call_id: call.id, content: '{"tempC":4}' }],
      },
    });
    expect(second.json.choices[0].message.content).toBe('The tool get_weather returned: {"tempC":4}');
  });

  it('answers in text when tool_choice is none', async () => {
    const { key } = await newKey(owner);
    const res = await v1('POST', '/chat/completions', key, {
      body: { model: 'local-chat', tools, tool_choice: 'none', messages: userSays('get_weather {"city":"Oslo"}') },
    });
    expect(res.json.choices[0].message.content).toBe('You said: get_weather {"city":"Oslo"}');
  });
});

describe('embeddings and models', () => {
  it('embeds a string and a list through embed(), with usage', async () => {
    const { key } = await newKey(owner);
    const res = await v1('POST', '/embeddings', key, {
      body: { model: 'local-embed', input: ['red apple', 'green pear'] },
    });
    expect(res).toAnswer(200);
    expect(res.json.object).toBe('list');
    expect(res.json.data).toHaveLength(2);
    expect(res.json.data[1].embedding).toHaveLength(256);
    expect(res.json.usage.prompt_tokens).toBe((await countTokens('red apple')) + (await countTokens('green pear')));
    const one = await v1('POST', '/embeddings', key, { body: { model: 'local-embed', input: 'red apple' } });
    expect(one.json.data[0].embedding).toEqual(res.json.data[0].embedding);
  });

  it("lists the active models a key may use (all for an unrestricted key or a user's token)", async () => {
    const { key: all } = await newKey(owner);
    const names = (await v1('GET', '/models', all)).json.data.map((m: { id: string }) => m.id);
    expect(names).toEqual(expect.arrayContaining(['local-chat', 'local-chat-large', 'local-flaky', 'local-embed']));
    const { key: one } = await newKey(owner, { models: ['local-chat'] });
    const listed = await v1('GET', '/models', one);
    expect(listed.json).toEqual({
      object: 'list',
      data: [{ id: 'local-chat', object: 'model', created: expect.any(Number), owned_by: 'local' }],
    });
    const byUser = await v1('GET', '/models', owner);
    expect(byUser).toAnswer(200);
    expect(byUser.json.data.length).toBeGreaterThanOrEqual(4);
  });

  it("a user's access token calls the gateway too, and a validation error is in OpenAI's format", async () => {
    const res = await v1('POST', '/chat/completions', owner, {
      body: { model: 'local-chat', messages: userSays('hi') },
    });
    expect(res).toAnswer(200);
    const bad = await v1('POST', '/chat/completions', owner, { body: { model: 'local-chat', messages: [] } });
    expect(bad).toAnswer(400);
    expect(bad.json.error.type).toBe('invalid_request_error');
    expect(bad.json.success).toBeUndefined();
  });
});

describe('gateway keys', () => {
  it('shows the secret once, stores only its hash, lists newest first and revokes at once', async () => {
    const created = await newKey(owner, { name: 'ci', models: ['local-chat'], rpmLimit: 100, tpmLimit: 100_000 });
    expect(created.key).toMatch(/^gk_[A-Za-z0-9_-]{43}$/);
    expect(created.keyPrefix).toBe(created.key.slice(0, 10));
    const list = await invoke('GET', '/api/llm-gateway/keys', { token: owner, ip: ip() });
    const listed = list.json.result.items.find((k: { id: string }) => k.id === created.id);
    expect(listed).toMatchObject({ name: 'ci', models: ['local-chat'], rpmLimit: 100, revokedAt: null, spendUsd: 0 });
    expect(JSON.stringify(list.json)).not.toContain(created.key);
    const stored = await get<Record<string, unknown>>(gatewayKeys.key(tenant, created.id));
    expect(JSON.stringify(stored)).not.toContain(created.key);

    expect(await v1('GET', '/models', created.key)).toAnswer(200);
    const revoked = await invoke('DELETE', `/api/llm-gateway/keys/${created.id}`, { token: owner, ip: ip() });
    expect(revoked).toAnswer(204);
    const after = await v1('POST', '/chat/completions', created.key, {
      body: { model: 'local-chat', messages: userSays('hi') },
    });
    expect(after).toAnswer(401, 'invalid_api_key');
  });

  it("members read keys and usage but cannot create or revoke; another tenant's key is 404", async () => {
    const member = await tokenFor({ tenantId: tenant, role: 'TenantMember' });
    expect(await invoke('GET', '/api/llm-gateway/keys', { token: member, ip: ip() })).toAnswer(200);
    expect(await invoke('POST', '/api/llm-gateway/keys', { token: member, ip: ip(), body: { name: 'x' } })).toAnswer(
      403,
    );
    const other = await newTenant();
    const otherOwner = await tokenFor({ tenantId: other });
    const theirs = await newKey(otherOwner);
    expect(await invoke('DELETE', `/api/llm-gateway/keys/${theirs.id}`, { token: owner, ip: ip() })).toAnswer(404);
    // A key of tenant B never shows tenant A's usage or keys: it is bound to B.
    const mine = await invoke('GET', '/api/llm-gateway/keys', { token: owner, ip: ip() });
    expect(mine.json.result.items.some((k: { id: string }) => k.id === theirs.id)).toBe(false);
  });
});

describe('model catalog', () => {
  const body = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    provider: 'local',
    providerModel: 'echo',
    kind: 'chat',
    inputPricePerMillion: 0.5,
    outputPricePerMillion: 1.5,
    contextWindow: 32_000,
    fallbackModelIds: [LOCAL_MODEL_IDS.chat],
    isActive: true,
    ...extra,
  });

  it('a SystemAdmin creates (201) and replaces (200) an entry; the gateway serves it at once; inactive is 404', async () => {
    const admin = await tokenFor({ role: 'SystemAdmin' });
    const id = crypto.randomUUID();
    const created = await invoke('PUT', `/api/llm-gateway/models/${id}`, {
      token: admin,
      ip: ip(),
      body: body('team-model'),
    });
    expect(created).toAnswer(201);
    expect(created.json.result).toMatchObject({ id, name: 'team-model', fallbackModelIds: [LOCAL_MODEL_IDS.chat] });
    const { key } = await newKey(owner);
    const answer = await v1('POST', '/chat/completions', key, {
      body: { model: 'team-model', messages: userSays('x') },
    });
    expect(answer.json.model).toBe('team-model');
    const off = await invoke('PUT', `/api/llm-gateway/models/${id}`, {
      token: admin,
      ip: ip(),
      body: body('team-model', { isActive: false }),
    });
    expect(off).toAnswer(200);
    expect(
      await v1('POST', '/chat/completions', key, { body: { model: 'team-model', messages: userSays('x') } }),
    ).toAnswer(404);
  });

  it('refuses a taken name (409), an unknown or other-kind fallback (400), and tenant callers (403)', async () => {
    const admin = await tokenFor({ role: 'SystemAdmin' });
    const put = (b: Record<string, unknown>, token = admin) =>
      invoke('PUT', `/api/llm-gateway/models/${crypto.randomUUID()}`, { token, ip: ip(), body: b });
    expect(await put(body('local-chat'))).toAnswer(409);
    expect(await put(body('m1', { fallbackModelIds: [crypto.randomUUID()] }))).toAnswer(400);
    expect(await put(body('m2', { fallbackModelIds: [LOCAL_MODEL_IDS.embed] }))).toAnswer(400);
    expect(await put(body('m3', { name: 'bad#name' }))).toAnswer(400);
    expect(await put(body('m4'), owner)).toAnswer(403);
  });
});

describe('maxTokensPerMonth', () => {
  it('comes from the plan, a SystemAdmin overrides it on the tenant (owner: 403), and the gateway applies it', async () => {
    const admin = await tokenFor({ role: 'SystemAdmin' });
    const slug = `gw-${crypto.randomUUID().slice(0, 8)}`;
    const made = await invoke('POST', '/api/tenants', {
      token: admin,
      ip: ip(),
      body: {
        slug,
        name: 'Gateway Co',
        email: `o@${slug}.example.com`,
        planType: 1,
        maxAgents: 1,
        maxKnowledgeBases: 1,
        maxSeats: 5,
      },
    });
    expect(made).toAnswer(201);
    expect(made.json.result.maxTokensPerMonth).toBe(100_000);
    const t = made.json.result.id;
    const tOwner = await tokenFor({ tenantId: t });
    expect(
      await invoke('PUT', `/api/tenants/${slug}`, { token: tOwner, ip: ip(), body: { maxTokensPerMonth: 5 } }),
    ).toAnswer(403);
    const set = await invoke('PUT', `/api/tenants/${slug}`, { token: admin, ip: ip(), body: { maxTokensPerMonth: 5 } });
    expect(set).toAnswer(200);
    expect(
      (await invoke('GET', `/api/tenants/${slug}`, { token: tOwner, ip: ip() })).json.result.maxTokensPerMonth,
    ).toBe(5);
    const refused = await v1('POST', '/chat/completions', tOwner, {
      body: { model: 'local-chat', messages: userSays('hi') },
    });
    expect(refused).toAnswer(429);
    expect(refused.json.error).toMatchObject({ code: 'insufficient_quota', type: 'insufficient_quota' });
    const usage = await invoke('GET', '/api/llm-gateway/usage', { token: tOwner, ip: ip() });
    expect(usage.json.result).toMatchObject({ tokenAllowance: 5, tokensUsed: 0 });
  });
});

describe('usage and analytics', () => {
  it('agree: tokens and spend per model and per key, and one analytics record per call (agent calls named)', async () => {
    const t = await newTenant({ planType: 2 });
    const tOwner = await tokenFor({ tenantId: t });
    const { key, id } = await newKey(tOwner);
    let tokens = 0;
    for (const model of ['local-chat', 'local-chat-large']) {
      const r = await v1('POST', '/chat/completions', key, { body: { model, messages: userSays(`to ${model}`) } });
      tokens += r.json.usage.total_tokens;
    }
    const agentId = crypto.randomUUID();
    const byAgent = await chat({
      tenantId: t,
      caller: { kind: 'agent', agentId },
      requestId: crypto.randomUUID(),
      model: 'local-chat',
      messages: [{ role: 'user', content: 'from an agent' }],
    });
    tokens += byAgent.usage.totalTokens;
    const usage = (await invoke('GET', '/api/llm-gateway/usage', { token: tOwner, ip: ip() })).json.result;
    expect(usage.tokensUsed).toBe(tokens);
    expect(usage.models.map((m: { model: string; requests: number }) => [m.model, m.requests]).sort()).toEqual([
      ['local-chat', 2],
      ['local-chat-large', 1],
    ]);
    expect(usage.keys).toEqual([expect.objectContaining({ keyId: id, requests: 2 })]);
    const analytics = (await invoke('GET', '/api/analytics/llm', { token: tOwner, ip: ip() })).json.result;
    expect(analytics.totalRequests).toBe(3);
    expect(analytics.totalTokensUsed).toBe(tokens);
    expect(analytics.totalCostUSD).toBeCloseTo(usage.spendUsd, 6);
    expect(analytics.activeAgentCount).toBe(1);
  });
});

describe('in-process chat() with a shape', () => {
  it('answers an agent that asks for a JSON Schema with JSON valid against it; a schema that does not compile is 400 before any hold', async () => {
    const t = await newTenant({ planType: 2 });
    const ask = (schema: Record<string, unknown>) =>
      chat({
        tenantId: t,
        caller: { kind: 'agent', agentId: crypto.randomUUID() },
        requestId: crypto.randomUUID(),
        model: 'local-chat',
        messages: [{ role: 'user', content: 'Grade this {"score":4}' }],
        responseFormat: { type: 'json_schema', name: 'grade', schema, strict: true },
      });
    const r = await ask({
      type: 'object',
      properties: { score: { type: 'integer', minimum: 1, maximum: 5 }, reason: { type: 'string' } },
      required: ['score', 'reason'],
      additionalProperties: false,
    });
    expect(JSON.parse(r.message.content!)).toEqual({ score: 4, reason: 'Grade this {"score":4}' });
    const broken = await ask({ type: 'object', properties: { a: { type: 'nope' } } }).catch((e) => e);
    expect(broken).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(broken.details).toEqual([{ path: 'body.response_format.json_schema.schema', message: expect.any(String) }]);
  });
});
