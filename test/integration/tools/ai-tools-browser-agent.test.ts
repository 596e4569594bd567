import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { localInvoker } from '#local/invoke.ts';
import { functionInvoker } from '#shared/platform/ports.ts';
import { prepareBrowser } from '#test/support/browser.ts';
import { activeToolVia, AGENTS, newPrompt } from '#test/support/agents.ts';
import { startEchoSite, type EchoSite } from '#test/support/echo-site.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { caller } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * The Browser Action tool as a tenant sets it up and an agent uses it, all through the API: tool
 * created and parameterised on the tools routes, approved by a SystemAdmin, called by the local
 * model from the playground; the browser function runs in process (local/invoke.ts) on real Chromium.
 */
vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');
// Host names as a tenant configures them (the routes take names, not addresses): the shop resolves to
// the loopback site, the intranet name to a private address. Chromium never resolves a name itself:
// the guard proxy does, here.
vi.mock('node:dns/promises', async (real) => ({
  ...(await real<typeof import('node:dns/promises')>()),
  lookup: async (host: string) => {
    if (host === 'shop.acme.example') return [{ address: '127.0.0.1', family: 4 }];
    if (host === 'intranet.acme.example') return [{ address: '10.0.0.7', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  },
}));
const SHOP = 'shop.acme.example';

let site: EchoSite;
let owner: string;
let agents: ReturnType<typeof caller>;
let promptId: string;

beforeAll(async () => {
  await prepareBrowser();
  site = await startEchoSite();
  const t = await newTenant({ planType: 2, maxAgents: 10 });
  owner = await tokenFor({ tenantId: t });
  agents = caller(AGENTS, owner);
  promptId = await newPrompt(owner);
}, 120_000);
afterAll(() => site.close());
const shop = () => `http://${SHOP}:${site.port}`;

async function agentWith(configParams: Record<string, unknown>, name = 'Browse Site') {
  // Run unattended, so the call reaches the browser (approval: ai-approvals.test.ts).
  const toolId = await activeToolVia(owner, 'browser_action', name, { requiresApproval: false, ...configParams });
  const res = await agents.post('', { name: `Agent ${crypto.randomUUID().slice(0, 6)}`, promptId, toolIds: [toolId] });
  expect(res).toAnswer(201);
  return { agentId: res.json.result.id as string, toolId };
}

async function chat(agentId: string, content: string) {
  const res = await agents.post(`/${agentId}/chat`, { messages: [{ role: 'user', content }] });
  expect(res).toAnswer(200);
  return res.json.result as { message: string; toolCalls: { name: string; status: string; result: string }[] };
}

const orderSteps = (origin: string) => ({
  steps: [
    { action: 'navigate', url: `${origin}/form` },
    { action: 'fill', selector: '#name', value: 'Grace Hopper' },
    { action: 'select', selector: '#colour', value: 'red' },
    { action: 'click', text: 'Send order' },
    { action: 'read', selector: '#echo' },
  ],
});

describe('an agent using Browser Action through the API', () => {
  it('fills the form, submits it and reads the echo; the result is marked as untrusted page content', async () => {
    const { agentId } = await agentWith({ allowedHosts: [SHOP], maxSteps: 5, timeoutSeconds: 20 });
    const r = await chat(agentId, `browse_site ${JSON.stringify(orderSteps(shop()))}`);
    expect(r.toolCalls).toHaveLength(1);
    expect(r.toolCalls[0]).toMatchObject({ name: 'browse_site', status: 'ok' });
    expect(r.toolCalls[0]!.result).toEqual(expect.stringMatching(/"content":"untrusted-web-page"/));
    expect(r.toolCalls[0]!.result).toEqual(expect.stringMatching(/Received order from Grace Hopper in red/));
    expect(site.hits).toContain('POST /echo');
  });

  it('keeps to the step-2 limits: more steps than maxSteps run nothing', async () => {
    const { agentId } = await agentWith({ allowedHosts: [SHOP], maxSteps: 2 }, 'Short Browse');
    const before = site.hits.length;
    const r = await chat(agentId, `short_browse ${JSON.stringify(orderSteps(shop()))}`);
    expect(r.toolCalls[0]).toMatchObject({
      status: 'error',
      result: expect.stringMatching(/At most 2 steps per call; 5 were given\. Nothing was done\./),
    });
    expect(site.hits.length).toBe(before);
  });

  it('refuses a private address reached by a redirect, and the turn still answers', async () => {
    const { agentId } = await agentWith({ allowedHosts: [SHOP, 'intranet.acme.example'] }, 'Guarded Browse');
    const r = await chat(
      agentId,
      `guarded_browse ${JSON.stringify({ steps: [{ action: 'navigate', url: `${shop()}/to-intranet` }] })}`,
    );
    expect(r.toolCalls[0]).toMatchObject({ status: 'error' });
    expect(r.toolCalls[0]!.result).toEqual(
      expect.stringMatching(/refused: http:\/\/intranet\.acme\.example\/admin \(.*non-public address \(10\.0\.0\.7\)/),
    );
  });

  it('answers 200 with a tool error when the browser function fails or answers nonsense', async () => {
    const { agentId } = await agentWith({ allowedHosts: [SHOP] }, 'Broken Browse');
    const steps = JSON.stringify({ steps: [{ action: 'navigate', url: `${shop()}/form` }] });
    try {
      functionInvoker.install({
        invoke: async () => {
          throw new Error('Task timed out after 45.00 seconds');
        },
      });
      const failed = await chat(agentId, `broken_browse ${steps}`);
      expect(failed.toolCalls[0]).toMatchObject({
        status: 'error',
        result: 'Error: The browser is not available right now; nothing was done',
      });
      functionInvoker.install({ invoke: async () => ({ errorMessage: 'Runtime.ExitError' }) });
      const garbled = await chat(agentId, `broken_browse ${steps}`);
      expect(garbled.toolCalls[0]).toMatchObject({ status: 'error', result: expect.stringMatching(/not available/) });
    } finally {
      functionInvoker.install(localInvoker);
    }
  });

  it('takes maxSteps on the config-params route, bounded 1-25', async () => {
    const toolId = await activeToolVia(owner, 'browser_action', 'Param Browse', { allowedHosts: [SHOP] });
    const tools = caller('/api/tools', owner);
    const ok = await tools.put(`/${toolId}/config-params`, { maxSteps: 25 });
    expect(ok).toAnswer(200);
    expect(ok.json.result).toMatchObject({ maxSteps: 25, allowedHosts: [SHOP] });
    for (const maxSteps of [0, 26, 2.5, '5']) {
      const bad = await tools.put(`/${toolId}/config-params`, { maxSteps });
      expect([bad.status, bad.json.error.code], String(maxSteps)).toEqual([400, 'VALIDATION_ERROR']);
    }
    expect((await tools.get(`/${toolId}/config-params`)).json.result.maxSteps).toBe(25);
  });
});
