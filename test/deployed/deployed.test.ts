import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEDROCK_MODELS } from '#areas/llm-gateway/bedrock-models.ts';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import { signProviderA } from '#areas/billing/signatures.ts';
import { describeDenials } from '#local/deployed/iam-check.ts';
import { type Json, type StackTemplate, templateFunctions } from '#local/deployed/template.ts';
import { initStage } from '#scripts/stage-init.ts';
import { DELIVERY_ATTEMPT } from '#areas/outbound-webhooks/messages.ts';
import { CHANNEL_SEND } from '#areas/channels/queue.ts';
import { smoke } from '#scripts/smoke.ts';
import { synthBundled } from './support/assembly.ts';
import { operatorAdmin, queueAsProducer } from './support/operator.ts';
import { deployedWorld, expectNoDenials, logsOf, type World } from './support/world.ts';

/**
 * The deployed tier: the stack synthesized with bundling, every function of the template run from
 * its cdk.out bundle in its own process with its template environment, fed by its real triggers,
 * every AWS call it makes checked against its own role (docs/architecture.md, "Tests").
 * DEPLOYED_ASSEMBLY=<cdk.out> reuses an assembly synthesized with the same context (`npx cdk synth
 * -c stage=test -c corsOrigins=https://app.example.test -o <dir>`) while writing a scenario.
 */
let assembly: string;
let w: World;
const nova = BEDROCK_MODELS.find((m) => m.name === 'nova-lite')!;

beforeAll(async () => {
  assembly = process.env.DEPLOYED_ASSEMBLY ?? synthBundled();
  w = await deployedWorld(assembly);
}, 900_000);
afterAll(async () => {
  await w?.stack.stop();
});

describe('a first deploy', () => {
  it('stage:init created the stage parameters once; run again, it creates nothing', async () => {
    expect(w.init.created).toEqual([
      '/saas/test/auth/jwt-public-jwks',
      '/saas/test/auth/jwt-private-jwk',
      '/saas/test/internal-api-key',
    ]);
    expect(await initStage(w.params, 'saas', 'test')).toEqual({ created: [], kept: w.init.created });
  });

  it("the LLM catalog seed's provider wrote each Bedrock model through its own role", () => {
    expect(w.resources.map((r) => [r.LogicalResourceId.replace(/[0-9A-F]{8}$/, ''), r.Status])).toEqual([
      ['LlmCatalogSeednovalite', 'SUCCESS'],
      ['LlmCatalogSeedtitanembedtextv2', 'SUCCESS'],
    ]);
    expectNoDenials(w.stack);
  });
});

describe('a new customer, as the smoke script meets a stage', () => {
  let owner: Awaited<ReturnType<typeof smoke>>;

  it('signs up, calls /v1 on Bedrock, uploads, and retrieves what the worker indexed', async () => {
    const lines: string[] = [];
    owner = await smoke(w.stack.apiUrl, {
      email: 'owner@shop.example',
      readCode: w.codeFor,
      whileWaiting: () => w.stack.pollers.drain(),
      log: (l) => lines.push(l),
      indexingTimeoutMs: 60_000,
    }).catch((err) => {
      throw new Error(
        `${(err as Error).message}\n${describeDenials(w.stack.iam.denied())}\n${logsOf(w.stack, 'llm-gateway')}\n${logsOf(w.stack, 'knowledge-worker')}`,
      );
    });
    expect(lines.at(-1)).toBe('ok  the uploaded text was retrieved');
    // The answer came from the Bedrock stand-in, the embeddings too (the worker's and the query's).
    expect(w.stack.bedrock.calls).toEqual(
      expect.arrayContaining([`converse ${nova.bedrockId}`, 'invoke amazon.titan-embed-text-v2:0']),
    );
    expect(owner.matches[0]).toMatchObject({ vectorScore: expect.any(Number), keywordScore: expect.any(Number) });
    expectNoDenials(w.stack);
  });

  it('streams a /v1 completion through the gateway front door as ConverseStream produces it', async () => {
    const res = await fetch(`${w.streamDoor('llm-gateway')}/api/llm-gateway/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'nova-lite',
        stream: true,
        messages: [{ role: 'user', content: 'one two three' }],
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const text = await res.text();
    const deltas = [...text.matchAll(/^data: (\{.*\})$/gm)].map(
      (m) => JSON.parse(m[1]!).choices?.[0]?.delta?.content ?? '',
    );
    expect(deltas.join('')).toBe('You said: one two three');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(w.stack.bedrock.calls).toContain(`converse-stream ${nova.bedrockId}`);
    // The calls' records went to the usage queue; its worker ingested them with its own role.
    await w.stack.pollers.drain();
    const usageWorker = w.stack.byName('usage-worker').fn.name;
    const deliveries = w.stack.pollers.record.filter((r) => r.functionName === usageWorker);
    expect(
      deliveries.reduce((n, r) => n + r.messages, 0),
      logsOf(w.stack, 'usage-worker'),
    ).toBeGreaterThanOrEqual(2);
    expect(
      deliveries.every((r) => r.failed === 0),
      logsOf(w.stack, 'usage-worker'),
    ).toBe(true);
    const usage = await w.api('GET', '/api/llm-gateway/usage', { token: owner.token });
    expect(usage).toAnswer(200);
    const requests = (usage.json.result.models as { requests: number }[]).reduce((n, m) => n + m.requests, 0);
    expect(requests).toBeGreaterThanOrEqual(2);
    expectNoDenials(w.stack);
  });

  it('invites a colleague: the tenants function queues the e-mail, the e-mail worker sends it through SES', async () => {
    const tenant = await w.api('GET', '/api/tenants', { token: owner.token });
    expect(tenant).toAnswer(200);
    const slug = tenant.json.result.items[0].slug as string;
    const invite = await w.api('POST', `/api/tenants/${slug}/invitations`, {
      token: owner.token,
      body: { email: 'colleague@shop.example', roles: ['TenantMember'] },
    });
    expect(invite).toAnswer(201);
    await w.stack.pollers.drain();
    const sent = (await w.mails()).filter((m) => m.destination.to.includes('colleague@shop.example'));
    expect(sent, logsOf(w.stack, 'email-worker')).toHaveLength(1);
    expectNoDenials(w.stack);
  });

  it('reads every area its functions serve, each function with its own role', async () => {
    const reads = [
      '/api/users',
      '/api/roles',
      '/api/departments',
      '/api/suppliers',
      '/api/bcm/admin/bia',
      '/api/subscriptions/plans',
      '/api/prompts',
      '/api/tools',
      '/api/analytics/llm',
      '/api/ai/agents',
      '/api/ai/calendars',
      '/api/webhook-subscriptions',
      '/api/proactive-messages',
      '/api/conversations',
      '/api/knowledge/bases',
      '/api/llm-gateway/keys',
    ];
    for (const path of reads) {
      const res = await w.api('GET', path, { token: owner.token });
      expect(res, `${path}: ${res.text}`).toAnswer(200);
    }
    expectNoDenials(w.stack);
  });

  it('the doors that refuse it still answer from their own functions', async () => {
    const refusals: [string, string, number, object?][] = [
      ['GET', '/api/admin/audit-logs', 403],
      ['GET', '/api/content/admin/sites', 403],
      ['GET', '/api/content/sites/resolve?domain=nowhere.example', 404],
      ['GET', '/api/nothing-here', 404],
    ];
    for (const [method, path, status, body] of refusals) {
      const res = await w.api(method, path, { token: owner.token, ...(body ? { body } : {}) });
      expect(res, `${method} ${path}: ${res.text}`).toAnswer(status);
    }
    expect(await w.api('GET', '/api/health')).toAnswer(200);
    const jwks = await w.api('GET', '/.well-known/jwks.json');
    expect(jwks.json.keys).toHaveLength(1);
    const streamed = await fetch(`${w.streamDoor('system')}/api/health/stream?count=2`);
    expect((await streamed.text()).match(/^data: /gm)?.length).toBeGreaterThanOrEqual(2);
    expectNoDenials(w.stack);
  });

  it("a payment provider's signed webhook is verified with the secret in SSM and applied by the webhook worker", async () => {
    // The provider's signing secret is the deployer's to put (docs/operations.md, "Before the first deploy").
    const secret = 'whsec_deployed_tier_secret';
    await w.params.put('/saas/test/providers/payment-provider-a/webhook-secret', secret, { secure: true });
    const tenantId = (await w.api('GET', '/api/tenants', { token: owner.token })).json.result.items[0].id as string;
    // No provider is configured for the stage (subscriptions answer PAYMENTS_NOT_CONFIGURED): an event
    // for a checkout this stage never started, which the worker records and leaves.
    const sub = await w.api('GET', '/api/subscriptions/plans', { token: owner.token });
    expect(sub).toAnswer(200);
    const event = {
      id: `evt_${crypto.randomUUID()}`,
      type: 'checkout.completed',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: 'cs_1',
          amount_total: 2900,
          currency: 'USD',
          charge: `ch_${crypto.randomUUID()}`,
          metadata: { tenantId, kind: 'subscription', reference: crypto.randomUUID() },
        },
      },
    };
    const rawBody = JSON.stringify(event);
    const res = await fetch(`${w.stack.apiUrl}/api/webhooks/payment-provider-a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signProviderA(secret, rawBody, Math.floor(Date.now() / 1000)) },
      body: rawBody,
    });
    expect({ status: res.status, text: await res.text() }).toAnswer(200);
    await w.stack.pollers.drain();
    const worker = w.stack.pollers.record.filter((r) => r.functionName === w.stack.byName('webhook-worker').fn.name);
    expect(worker, logsOf(w.stack, 'webhook-worker')).toEqual([expect.objectContaining({ messages: 1, failed: 0 })]);
    expectNoDenials(w.stack);
  });

  it('the vault answers the internal key kept in SSM', async () => {
    const key = (await w.params.get('/saas/test/internal-api-key'))!.value;
    const put = await w.api('PUT', '/api/secrets/staging/db-password', {
      headers: { 'x-internal-api-key': key },
      body: { value: 's3cret-value' },
    });
    expect(put.status, put.text).toBeLessThan(300);
    const got = await w.api('GET', '/api/secrets/staging/db-password', { headers: { 'x-internal-api-key': key } });
    expect(got).toAnswer(200);
    expect(got.text).toContain('s3cret-value');
    expectNoDenials(w.stack);
  });

  it("a vault sync is queued for the jobs worker, which reads the deployment's sources with its own role", async () => {
    const key = (await w.params.get('/saas/test/internal-api-key'))!.value;
    const admin = await operatorAdmin(w);
    const sync = await w.api('POST', '/api/secrets/sync/staging', {
      token: admin,
      headers: { 'x-internal-api-key': key },
    });
    expect(sync.status, sync.text).toBeLessThan(300);
    await w.stack.pollers.drain();
    expect(w.stack.byName('jobs-worker').invocations, logsOf(w.stack, 'vault')).toBeGreaterThan(0);
    expectNoDenials(w.stack);
  });
});

describe('agents, as deployed', () => {
  let admin: string;
  let owner: string;
  let agentId: string;

  beforeAll(async () => {
    admin = await operatorAdmin(w);
    const email = 'agent-owner@shop.example';
    // Another address: the sign-in limits count per source IP, and the smoke's sign-up used the first.
    const from = '127.0.0.2';
    const start = await w.api('POST', '/api/onboarding/start', {
      from,
      body: { tenantName: 'Agent shop', email, firstName: 'Ada', lastName: 'Owner' },
    });
    expect(start).toAnswer(201);
    const password = 'Agent-owner-pass-2026!';
    await w.api('POST', '/api/auth/register', {
      from,
      body: { email, password, firstName: 'Ada', lastName: 'Owner', invitationCode: start.json.result.invitationCode },
    });
    await w.api('POST', '/api/auth/verify-email', { from, body: { email, code: await w.codeFor(email) } });
    owner = (await w.api('POST', '/api/auth/login', { from, body: { email, password } })).json.result.accessToken;
  }, 120_000);

  it('a prompt sent to review is evaluated by the turn worker; the playground turn calls Browser Action', async () => {
    const as = (method: string, path: string, body?: unknown) => w.api(method, path, { token: owner, body });
    const prompt = await as('POST', '/api/prompts', {
      title: 'Support',
      content: 'You are {{agent_name}}. Answer briefly.',
      modelId: nova.catalogId,
    });
    expect(prompt).toAnswer(201);
    const v = `/api/prompts/${prompt.json.result.id}/versions/${prompt.json.result.versions[0].id}`;
    expect(await as('PUT', `${v}/review`)).toAnswer(204);
    await w.stack.pollers.drain();
    expect(w.stack.byName('channel-turn-worker').invocations).toBeGreaterThan(0);
    expect(await as('PUT', `${v}/approve`)).toAnswer(204);

    const baseToolId = BUILT_IN_TOOLS.find((b) => b.code === 'browser_action')!.id;
    const tool = await as('POST', '/api/tools', {
      displayName: 'Browse Site',
      baseToolId,
      configParams: { requiresApproval: false, allowedHosts: ['shop.example'], maxSteps: 2 },
    });
    expect(tool).toAnswer(201);
    const toolId = tool.json.result.id as string;
    const asAdmin = (path: string) => w.api('PUT', path, { token: admin });
    expect(await asAdmin(`/api/tools/${toolId}/approve`)).toAnswer(200);
    expect((await asAdmin(`/api/tools/${toolId}/activate`)).json.result.status).toBe('ACTIVE');

    const agent = await as('POST', '/api/ai/agents', {
      name: 'Shop helper',
      promptId: prompt.json.result.id,
      toolIds: [toolId],
    });
    expect(agent).toAnswer(201);
    // A navigation the deployed guard refuses before Chromium starts: no traffic leaves this machine.
    const steps = { steps: [{ action: 'navigate', url: 'http://0.0.0.0:9/' }] };
    const chat = await as('POST', `/api/ai/agents/${agent.json.result.id}/chat`, {
      messages: [{ role: 'user', content: `browse_site ${JSON.stringify(steps)}` }],
    });
    expect(chat).toAnswer(200);
    expect(chat.json.result.toolCalls[0]).toMatchObject({ name: 'browse_site' });
    expect(w.stack.byName('browser-action').invocations, logsOf(w.stack, 'agent-runtime')).toBeGreaterThan(0);
    expectNoDenials(w.stack);
    agentId = agent.json.result.id as string;
  });

  it("a visitor's widget message streams through the conversations front door", async () => {
    const as = (method: string, path: string, body?: unknown) => w.api(method, path, { token: owner, body });
    expect(await as('POST', `/api/ai/agents/${agentId}/publish`)).toAnswer(200);
    const origin = 'https://shop.example';
    const widget = await as('POST', `/api/ai/agents/${agentId}/widgets`, { name: 'Shop', allowedOrigins: [origin] });
    expect(widget).toAnswer(201);
    const session = await w.api('POST', '/api/conversations/widget/sessions', {
      headers: { origin },
      body: { widgetKey: widget.json.result.widgetKey },
    });
    expect(session).toAnswer(201);
    const res = await fetch(`${w.streamDoor('conversations')}/api/conversations/widget/messages`, {
      method: 'POST',
      headers: {
        origin,
        'x-widget-session': session.json.result.sessionToken,
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'idempotency-key': 'turn-1',
      },
      body: JSON.stringify({ text: 'when do you open on Sundays' }),
    });
    const text = await res.text();
    expect({ status: res.status, text }).toAnswer(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(text, logsOf(w.stack, 'conversations-stream')).toContain('You said: when do you open on Sundays');
    expectNoDenials(w.stack);
  });
});

describe('the workers with no producer a scenario here may drive', () => {
  it("a delivery and a channel send, queued as their producers queue them, are consumed with the workers' own roles", async () => {
    const tenantId = crypto.randomUUID();
    await queueAsProducer(w, DELIVERY_ATTEMPT, {
      tenantId,
      subscriptionId: crypto.randomUUID(),
      deliveryId: crypto.randomUUID(),
      attempt: 1,
      event: { id: crypto.randomUUID(), type: 'document.indexed', timestamp: new Date().toISOString(), data: {} },
    });
    // A Telegram send whose bot token is no tenant secret: nothing is sent, nothing leaves the machine.
    await queueAsProducer(w, CHANNEL_SEND, {
      tenantId,
      connection: {
        id: 'telegram-1',
        type: 'telegram',
        settings: {},
        secretRefs: { botToken: `vault://tenants/${tenantId}/channels/telegram-1/botToken` },
      },
      message: { recipient: '42', text: 'hello' },
    });
    await w.stack.pollers.drain();
    for (const name of ['delivery-worker', 'channel-worker'])
      expect(w.stack.byName(name).invocations, logsOf(w.stack, name)).toBeGreaterThan(0);
    expectNoDenials(w.stack);
  });
});

describe('the schedule', () => {
  it("runs the scheduler's minute with its own role", async () => {
    const [run] = await w.stack.tick();
    expect(run, logsOf(w.stack, 'ai-scheduler')).toMatchObject({ ok: true });
    await w.stack.pollers.drain();
    expectNoDenials(w.stack);
  });
});

/** The onboarding function's id in the template, its role's policies, its environment. */
const onboardingOf = (t: StackTemplate) => {
  const fn = templateFunctions(t).find((f) => f.id.startsWith('Fnonboarding'))!;
  const policies = t
    .ofType('AWS::IAM::Policy')
    .filter(([, p]) => p.Properties.Roles.some((r: Json) => r.Ref === fn.roleId));
  return { fn, environment: t.resources[fn.id]!.Properties.Environment.Variables, policies };
};

describe('a fault planted in the template fails the tier', () => {
  const start = (email: string, world: World) =>
    world.api('POST', '/api/onboarding/start', {
      body: { tenantName: 'Planted', email, firstName: 'Pat', lastName: 'Planted' },
    });

  it('a missing grant: the call is refused and named (function, action, resource)', async () => {
    const planted = await deployedWorld(assembly, (t) => {
      for (const [, p] of onboardingOf(t).policies)
        p.Properties.PolicyDocument.Statement = p.Properties.PolicyDocument.Statement.filter(
          (st: Json) => ![st.Action].flat().includes('sqs:SendMessage'),
        );
    });
    try {
      const res = await start('grant@planted.example', planted);
      expect(res).toAnswer(500);
      const denied = planted.stack.iam.denied();
      expect(denied).toEqual([
        expect.objectContaining({
          caller: expect.stringMatching(/Fnonboarding/),
          action: 'sqs:SendMessage',
          resource: expect.stringMatching(/^arn:aws:sqs:us-east-1:\d+:saas-test-Queuesemail/),
        }),
      ]);
      expect(() => expectNoDenials(planted.stack)).toThrow(/Fnonboarding.* may not sqs:SendMessage on arn:aws:sqs:/);
    } finally {
      await planted.stack.stop();
    }
  });

  it('a missing setting: the function fails at start, as deployed', async () => {
    const planted = await deployedWorld(assembly, (t) => {
      delete onboardingOf(t).environment.EMAIL_QUEUE_URL;
    });
    try {
      const res = await start('setting@planted.example', planted);
      expect(res).toAnswer(500);
      expect(logsOf(planted.stack, 'onboarding')).toMatch(/Setting EMAIL_QUEUE_URL is missing/);
    } finally {
      await planted.stack.stop();
    }
  });
});

describe('the whole template', () => {
  it('every function ran from its bundle, and every AWS call was allowed by its own role', () => {
    const idle = [...w.stack.hosts.values()].filter((h) => h.invocations === 0).map((h) => h.fn.id);
    expect(idle).toEqual([]);
    expect(templateFunctions(w.stack.template)).toHaveLength(w.stack.hosts.size);
    expect(w.stack.iam.decisions.length).toBeGreaterThan(100);
    expectNoDenials(w.stack);
    console.log(
      `deployed tier: ${w.stack.hosts.size} functions run, ${w.stack.iam.decisions.length} AWS calls checked, ` +
        `${w.stack.pollers.record.length} SQS batches`,
    );
  });
});
