import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import { startMcpStandIn, type McpStandIn } from '#local/mcp-stand-in.ts';
import { AGENTS, newPrompt } from '#test/support/agents.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { caller, invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * An MCP Server tool as a tenant sets it up and an agent uses it, all through the API, against a real
 * MCP server over HTTP (the official SDK's server side, local/mcp-stand-in.ts): step 1 names the
 * server and its bearer token, a refresh reads its tools, step 2 picks them, a SystemAdmin approves,
 * and the local model calls them from the playground.
 */
// The stand-in listens on loopback, which the guard refuses unless the local run's switch is on.
vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');
// A name that resolves to a private address (nothing connects: the guard refuses it first).
vi.mock('node:dns/promises', async (real) => {
  const dns = await real<typeof import('node:dns/promises')>();
  return {
    ...dns,
    lookup: async (host: string, ...rest: unknown[]) =>
      host === 'intranet.acme.example'
        ? [{ address: '10.0.0.7', family: 4 }]
        : (dns.lookup as (...a: unknown[]) => Promise<unknown>)(host, ...rest),
  };
});

const TOKEN = `tok-${crypto.randomUUID()}`;
const MCP_ID = BUILT_IN_TOOLS.find((b) => b.code === 'mcp')!.id;

let server: McpStandIn;
let owner: string;
let admin: ReturnType<typeof caller>;
let tools: ReturnType<typeof caller>;
let agents: ReturnType<typeof caller>;
let promptId: string;

beforeAll(async () => {
  server = await startMcpStandIn({ token: TOKEN });
  const t = await newTenant({ planType: 2, maxAgents: 20 });
  owner = await tokenFor({ tenantId: t });
  tools = caller('/api/tools', owner);
  agents = caller(AGENTS, owner);
  admin = caller('/api/tools', await tokenFor({ role: 'SystemAdmin' }));
  promptId = await newPrompt(owner);
});
afterAll(() => server.close());

/** A tool on the stand-in, refreshed, with these server tools allowed; ACTIVE unless told otherwise. */
async function mcpTool(displayName: string, params: Record<string, unknown>, opts: { active?: boolean } = {}) {
  const created = await tools.post('', { displayName, baseToolId: MCP_ID });
  expect(created).toAnswer(201);
  const id = created.json.result.id as string;
  const config = await tools.put(`/${id}/config`, {
    schema: { serverUrl: server.url, authMethod: 'bearer', connectionString: TOKEN },
  });
  expect(config).toAnswer(200);
  expect(await tools.post(`/${id}/mcp/refresh`)).toAnswer(200);
  expect(await tools.put(`/${id}/config-params`, params)).toAnswer(200);
  if (opts.active !== false) {
    expect(await admin.put(`/${id}/approve`)).toAnswer(200);
    expect(await admin.put(`/${id}/activate`)).toAnswer(200);
  }
  return id;
}

async function agentWith(toolId: string) {
  const res = await agents.post('', { name: `Agent ${crypto.randomUUID().slice(0, 6)}`, promptId, toolIds: [toolId] });
  expect(res).toAnswer(201);
  return res.json.result.id as string;
}

const chat = (agentId: string, body: Record<string, unknown>) =>
  invoke('POST', `${AGENTS}/${agentId}/chat`, { token: owner, body });

async function say(agentId: string, content: string) {
  const res = await chat(agentId, { messages: [{ role: 'user', content }] });
  expect(res).toAnswer(200);
  return res.json.result as {
    message: string;
    toolCalls: { name: string; status: string; result: string }[];
    pendingActions: { id: string; tool: string; arguments: Record<string, unknown> }[];
  };
}

describe('an MCP Server tool: configuration and the server list', () => {
  it("reads the server's tools with the bearer token; the token is never answered", async () => {
    const id = await mcpTool('Desk', {}, { active: false });
    const list = await tools.get(`/${id}/mcp/tools`);
    expect(list).toAnswer(200);
    const byName = Object.fromEntries(list.json.result.tools.map((t: { name: string }) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual([
      'create_ticket',
      'fail_always',
      'huge_report',
      'lookup_order',
      'slow_report',
    ]);
    expect(byName.lookup_order).toMatchObject({
      description: 'Look up an order by its number',
      inputSchema: { type: 'object', required: ['orderId'] },
      annotations: { readOnlyHint: true },
      allowed: false,
      requiresApproval: false,
    });
    // Not marked read-only: its calls wait for a person by default.
    expect(byName.create_ticket).toMatchObject({ allowed: false, requiresApproval: true });
    expect(list.json.result.refreshedAt).toEqual(expect.any(String));
    expect(server.authorizations.at(-1)).toBe(`Bearer ${TOKEN}`);
    const config = await tools.get(`/${id}/config`);
    expect(config.json.result.schema).toMatchObject({
      serverUrl: server.url,
      authMethod: 'bearer',
      connectionStringSet: true,
      connectionString: expect.stringMatching(/^vault:\/\//),
    });
    for (const res of [config, list, await tools.get(`/${id}`)]) expect(JSON.stringify(res.json)).not.toContain(TOKEN);
  });

  it('refuses server tools the last refresh did not list, and server settings on other tools', async () => {
    const id = await mcpTool('Desk Two', {}, { active: false });
    expect(await tools.put(`/${id}/config-params`, { allowedTools: ['lookup_order', 'drop_tables'] })).toAnswer(
      400,
      'VALIDATION_ERROR',
    );
    expect(await tools.put(`/${id}/config`, { schema: { serverUrl: 'ftp://mcp.acme.example/' } })).toAnswer(400);
    expect(await tools.put(`/${id}/config`, { schema: { authMethod: 'header' } })).toAnswer(400);
    expect(await tools.put(`/${id}/config`, { schema: { authMethod: 'header', authHeaderName: 'Host' } })).toAnswer(
      400,
    );
    const http = await tools.post('', {
      displayName: 'Plain',
      baseToolId: BUILT_IN_TOOLS.find((b) => b.code === 'http_request')!.id,
    });
    const httpId = http.json.result.id as string;
    expect(await tools.put(`/${httpId}/config`, { schema: { serverUrl: server.url } })).toAnswer(400);
    expect(await tools.put(`/${httpId}/config-params`, { allowedTools: ['lookup_order'] })).toAnswer(400);
    expect(await tools.get(`/${httpId}/mcp/tools`)).toAnswer(409);
  });

  it('a changed schema of an allowed tool sends it back to review; an unchanged refresh does not', async () => {
    const own = await startMcpStandIn({ token: TOKEN });
    try {
      const created = await tools.post('', { displayName: 'Changing Desk', baseToolId: MCP_ID });
      const id = created.json.result.id as string;
      await tools.put(`/${id}/config`, {
        schema: { serverUrl: own.url, authMethod: 'bearer', connectionString: TOKEN },
      });
      expect(await tools.post(`/${id}/mcp/refresh`)).toAnswer(200);
      expect(await tools.put(`/${id}/config-params`, { allowedTools: ['create_ticket'] })).toAnswer(200);
      await admin.put(`/${id}/approve`);
      await admin.put(`/${id}/activate`);
      const same = await tools.post(`/${id}/mcp/refresh`);
      expect(same).toAnswer(200);
      expect(same.json.result.status).toBe('ACTIVE');
      own.changeTicketSchema();
      const changed = await tools.post(`/${id}/mcp/refresh`);
      expect(changed).toAnswer(200);
      expect(changed.json.result.status).toBe('PENDING');
      expect((await tools.get(`/${id}`)).json.result.status).toBe('PENDING');
    } finally {
      await own.close();
    }
  });

  it('allowing another server tool, or switching its approval off, sends an approved tool back to review', async () => {
    const id = await mcpTool('Widening Desk', { allowedTools: ['lookup_order'] });
    const wider = await tools.put(`/${id}/config-params`, { allowedTools: ['lookup_order', 'create_ticket'] });
    expect(wider).toAnswer(200);
    expect((await tools.get(`/${id}`)).json.result.status).toBe('PENDING');
    const other = await mcpTool('Unattended Desk', { allowedTools: ['create_ticket'] });
    expect(await tools.put(`/${other}/config-params`, { toolApproval: { create_ticket: false } })).toAnswer(200);
    expect((await tools.get(`/${other}`)).json.result.status).toBe('PENDING');
  });

  it('a redirect to a private address is refused on refresh (502, nothing stored)', async () => {
    const own = await startMcpStandIn();
    try {
      const created = await tools.post('', { displayName: 'Redirecting Desk', baseToolId: MCP_ID });
      const id = created.json.result.id as string;
      await tools.put(`/${id}/config`, { schema: { serverUrl: own.url } });
      own.redirectTo('http://0.0.0.0:1/mcp');
      const res = await tools.post(`/${id}/mcp/refresh`);
      expect(res).toAnswer(502, 'MCP_SERVER_FAILED');
      // The SDK follows no redirect off the server's origin; one it would follow meets the guard (pinned-fetch tests).
      expect(res.json.error.message).toMatch(/Redirect to http:\/\/0\.0\.0\.0:1\/mcp not followed/);
      expect((await tools.get(`/${id}/mcp/tools`)).json.result).toMatchObject({ refreshedAt: null, tools: [] });
    } finally {
      await own.close();
    }
  });
});

describe('an MCP server behind OAuth 2.1 (client credentials)', () => {
  const client = { clientId: 'platform-client', clientSecret: `cs-${crypto.randomUUID()}` };

  async function oauthTool(own: McpStandIn, oauth: Record<string, unknown>) {
    const created = await tools.post('', {
      displayName: `OAuth Desk ${crypto.randomUUID().slice(0, 6)}`,
      baseToolId: MCP_ID,
    });
    const id = created.json.result.id as string;
    const config = await tools.put(`/${id}/config`, {
      schema: { serverUrl: own.url, authMethod: 'oauth', connectionString: client.clientSecret, ...oauth },
    });
    expect(config).toAnswer(200);
    return { id, config: config.json.result };
  }

  it("gets a token from the server's authorization server and reads its tools; the secret is never answered", async () => {
    const own = await startMcpStandIn({ oauth: client });
    try {
      const issuer = new URL(own.url).origin;
      const { id, config } = await oauthTool(own, { oauthClientId: client.clientId, oauthIssuer: issuer });
      expect(config.schema).toMatchObject({ authMethod: 'oauth', oauthClientId: client.clientId, oauthIssuer: issuer });
      const list = await tools.post(`/${id}/mcp/refresh`);
      expect(list).toAnswer(200);
      expect(list.json.result.tools.map((t: { name: string }) => t.name)).toContain('lookup_order');
      expect(own.authorizations.filter((a) => a?.startsWith('Bearer at-')).length).toBeGreaterThan(0);
      expect(JSON.stringify(config)).not.toContain(client.clientSecret);
    } finally {
      await own.close();
    }
  });

  it('sends the credentials to no authorization server but the named issuer, and a wrong secret gets no token', async () => {
    const own = await startMcpStandIn({ oauth: client });
    try {
      const { id: elsewhere } = await oauthTool(own, {
        oauthClientId: client.clientId,
        oauthIssuer: 'https://auth.other.example',
      });
      const refused = await tools.post(`/${elsewhere}/mcp/refresh`);
      expect(refused).toAnswer(502, 'MCP_SERVER_FAILED');
      expect(refused.text).not.toContain(client.clientSecret);
      const basic = own.authorizations.filter((a) => a?.startsWith('Basic '));
      expect(basic).toEqual([]);
      const { id: wrong } = await oauthTool(own, {
        oauthClientId: client.clientId,
        oauthIssuer: new URL(own.url).origin,
        connectionString: 'cs-wrong',
      });
      expect(await tools.post(`/${wrong}/mcp/refresh`)).toAnswer(502, 'MCP_SERVER_FAILED');
      expect((await tools.get(`/${wrong}/mcp/tools`)).json.result).toMatchObject({ refreshedAt: null, tools: [] });
    } finally {
      await own.close();
    }
  });

  it('refuses an oauth configuration without its client id or issuer', async () => {
    const created = await tools.post('', { displayName: 'OAuth Half', baseToolId: MCP_ID });
    const id = created.json.result.id as string;
    const res = await tools.put(`/${id}/config`, {
      schema: { serverUrl: 'https://mcp.example.com/mcp', authMethod: 'oauth', oauthClientId: 'c' },
    });
    expect(res).toAnswer(400);
    expect(res.text).toMatch(/oauthIssuer/);
  });
});

describe('an agent calling MCP tools', () => {
  it('calls an allowed read-only tool at once; the result comes back as data', async () => {
    const agentId = await agentWith(await mcpTool('Orders', { allowedTools: ['lookup_order'] }));
    const r = await say(agentId, 'orders_lookup_order {"orderId":"A-17"}');
    expect(r.toolCalls).toEqual([
      expect.objectContaining({
        name: 'orders_lookup_order',
        status: 'ok',
        result: expect.stringMatching(/Order A-17: shipped/),
      }),
    ]);
    expect(r.toolCalls[0]!.result).toContain('"status":"shipped"');
    expect(r.message).toMatch(/^The tool orders_lookup_order returned/);
  });

  it('a server whose name resolves to a private address is refused before any connection', async () => {
    const id = await mcpTool('Rebound', { allowedTools: ['lookup_order'] });
    // Step 1 moved to a name that resolves privately: back to review, so approve it again.
    await tools.put(`/${id}/config`, {
      schema: { serverUrl: server.url.replace('127.0.0.1', 'intranet.acme.example') },
    });
    const list = await tools.post(`/${id}/mcp/refresh`);
    expect(list).toAnswer(502, 'MCP_SERVER_FAILED');
    expect(list.json.error.message).toMatch(/non-public address \(10\.0\.0\.7\)/);
  });

  it('a server tool that is not allowed is not offered, and never called', async () => {
    const agentId = await agentWith(await mcpTool('Lookup Only', { allowedTools: ['lookup_order'] }));
    const before = server.tickets.length;
    const r = await say(agentId, 'lookup_only_create_ticket {"subject":"Refund"}');
    expect(r.toolCalls.every((c) => c.name !== 'lookup_only_create_ticket' || c.status === 'error')).toBe(true);
    expect(server.tickets.length).toBe(before);
  });

  it('holds a side-effecting call for approval, then runs it once approved', async () => {
    const agentId = await agentWith(await mcpTool('Tickets', { allowedTools: ['create_ticket'] }));
    const subject = `Refund ${crypto.randomUUID().slice(0, 8)}`;
    const first = await say(agentId, `tickets_create_ticket {"subject":"${subject}","priority":"high"}`);
    expect(first.pendingActions).toEqual([
      expect.objectContaining({ tool: 'tickets_create_ticket', arguments: { subject, priority: 'high' } }),
    ]);
    expect(server.tickets.some((t) => t.subject === subject)).toBe(false);
    const second = await chat(agentId, { approveActionIds: [first.pendingActions[0]!.id] });
    expect(second).toAnswer(200);
    expect(second.json.result.message).toMatch(/^The tool tickets_create_ticket returned/);
    expect(server.tickets.filter((t) => t.subject === subject)).toEqual([{ subject, priority: 'high' }]);
  });

  it('checks the arguments against the server schema before any request', async () => {
    const agentId = await agentWith(await mcpTool('Strict Orders', { allowedTools: ['lookup_order'] }));
    const before = server.authorizations.length;
    const r = await say(agentId, `strict_orders_lookup_order {"orderId":"${'9'.repeat(60)}"}`);
    expect(r.toolCalls[0]).toMatchObject({ status: 'error', result: expect.stringMatching(/Invalid arguments/) });
    expect(server.authorizations.length).toBe(before);
  });

  it("a server's tool error and an oversized answer are tool errors; the turn still answers", async () => {
    const agentId = await agentWith(
      await mcpTool('Flaky', { allowedTools: ['fail_always', 'huge_report'], maxResponseBytes: 64 * 1024 }),
    );
    const failed = await say(agentId, 'flaky_fail_always {}');
    expect(failed.toolCalls[0]).toMatchObject({
      status: 'error',
      result: expect.stringMatching(/upstream system is down/),
    });
    const huge = await say(agentId, 'flaky_huge_report {}');
    expect(huge.toolCalls[0]).toMatchObject({
      status: 'error',
      result: expect.stringMatching(/larger than 65536 bytes/),
    });
  });

  it('a server slower than timeoutSeconds is a tool error, in about that time', async () => {
    const agentId = await agentWith(await mcpTool('Slow', { allowedTools: ['slow_report'], timeoutSeconds: 1 }));
    const started = Date.now();
    const r = await say(agentId, 'slow_slow_report {}');
    expect(r.toolCalls[0]).toMatchObject({ status: 'error', result: expect.stringMatching(/timed out|in time/) });
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('a redirect to a private address at call time is a tool error; nothing reaches it', async () => {
    const own = await startMcpStandIn();
    try {
      const created = await tools.post('', { displayName: 'Moved', baseToolId: MCP_ID });
      const id = created.json.result.id as string;
      await tools.put(`/${id}/config`, { schema: { serverUrl: own.url } });
      expect(await tools.post(`/${id}/mcp/refresh`)).toAnswer(200);
      await tools.put(`/${id}/config-params`, { allowedTools: ['lookup_order'] });
      await admin.put(`/${id}/approve`);
      await admin.put(`/${id}/activate`);
      const agentId = await agentWith(id);
      own.redirectTo('http://0.0.0.0:1/mcp');
      const r = await say(agentId, 'moved_lookup_order {"orderId":"A-1"}');
      expect(r.toolCalls[0]).toMatchObject({ status: 'error', result: expect.stringMatching(/not followed/) });
    } finally {
      await own.close();
    }
  });
});
