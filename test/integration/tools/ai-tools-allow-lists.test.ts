import { beforeAll, describe, expect, it, vi } from 'vitest';
import { activeToolVia, AGENTS, newPrompt } from '#test/support/agents.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { caller } from '#test/support/invoke.ts';
import { testMailer } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * The allow-lists configured through the tools routes are what the agent's executors enforce:
 * everything here goes through the API (tool create, SystemAdmin approval, agent create, playground).
 */
// No network here: the allowed host resolves (as a rebinding name would) to loopback, so passing the
// allow-list shows as the address guard's refusal instead of a connection.
vi.mock('node:dns/promises', async (real) => ({
  ...(await real<typeof import('node:dns/promises')>()),
  lookup: async (host: string) => {
    if (host === 'api.acme.example') return [{ address: '127.0.0.1', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  },
}));

let owner: string;
let agents: ReturnType<typeof caller>;
let promptId: string;

beforeAll(async () => {
  const t = await newTenant({ planType: 2, maxAgents: 10 });
  owner = await tokenFor({ tenantId: t });
  agents = caller(AGENTS, owner);
  promptId = await newPrompt(owner);
});

const activeTool = (code: string, displayName: string, configParams: Record<string, unknown>) =>
  activeToolVia(owner, code, displayName, configParams);

async function agentWith(toolId: string) {
  const res = await agents.post('', { name: `Agent ${crypto.randomUUID().slice(0, 6)}`, promptId, toolIds: [toolId] });
  expect(res).toAnswer(201);
  return res.json.result.id as string;
}

async function chat(agentId: string, content: string) {
  const res = await agents.post(`/${agentId}/chat`, { messages: [{ role: 'user', content }] });
  expect(res).toAnswer(200);
  return res.json.result as { message: string; toolCalls: { name: string; status: string; result: string }[] };
}

describe('tool allow-lists set through the API', () => {
  it("an agent's HTTP tool refuses a host outside the tool's allowedHosts; the turn still answers", async () => {
    const toolId = await activeTool('http_request', 'Call Api', { allowedHosts: ['api.acme.example'] });
    const agentId = await agentWith(toolId);
    for (const url of [
      'https://evil.example.com/steal',
      'https://api.acme.example.evil.example.com/x',
      'https://sub.api.acme.example/x',
    ]) {
      const r = await chat(agentId, `call_api {"url":"${url}"}`);
      expect(r.toolCalls, url).toHaveLength(1);
      expect(r.toolCalls[0]).toMatchObject({ name: 'call_api', status: 'error' });
      expect(r.toolCalls[0]?.result).toMatch(/is not allowed for this tool/);
      expect(r.message).toMatch(/^The tool call_api returned: .*"result":"Error: The host .* is not allowed/s);
    }
    // The configured host passes the allow-list and still meets the address guard.
    const allowed = await chat(agentId, 'call_api {"url":"https://api.acme.example/status"}');
    expect(allowed.toolCalls[0]).toMatchObject({ status: 'error' });
    expect(allowed.toolCalls[0]?.result).toMatch(
      /api\.acme\.example resolves to a non-public address \(127\.0\.0\.1\)/,
    );
  });

  it('an agent with no allowedHosts configured reaches nothing', async () => {
    const agentId = await agentWith(await activeTool('http_request', 'Fetch Page', {}));
    const r = await chat(agentId, 'fetch_page {"url":"https://api.acme.example/status"}');
    expect(r.toolCalls[0]).toMatchObject({ status: 'error', result: expect.stringMatching(/not allowed/) });
  });

  it("an agent's e-mail tool writes to a configured domain's addresses only, one well-formed address each", async () => {
    const toolId = await activeTool('send_email', 'Mail Desk', {
      requiresApproval: false,
      allowedRecipients: ['acme.example'],
    });
    const agentId = await agentWith(toolId);
    const before = testMailer.outbox.length;
    const ok = await chat(agentId, 'mail_desk {"to":"Ann@acme.example","subject":"Lead","text":"Call back"}');
    expect(ok.toolCalls[0]).toMatchObject({ name: 'mail_desk', status: 'ok' });
    expect(testMailer.outbox.slice(before)).toEqual([
      expect.objectContaining({ to: ['ann@acme.example'], subject: 'Lead', text: 'Call back' }),
    ]);
    for (const to of [
      'evil@example.com',
      'ann@sub.acme.example',
      'ann@acme.example, evil@example.com',
      'ann@acme.example.evil.com',
    ]) {
      const r = await chat(agentId, `mail_desk {"to":"${to}","text":"transcript"}`);
      expect(r.toolCalls[0], to).toMatchObject({ status: 'error', result: expect.stringMatching(/not allowed/) });
    }
    // A domain names nobody in particular: without "to" nothing is sent.
    const none = await chat(agentId, 'mail_desk {"text":"hello"}');
    expect(none.toolCalls[0]).toMatchObject({ status: 'error', result: expect.stringMatching(/recipient/) });
    expect(testMailer.outbox.length).toBe(before + 1);
  });
});
