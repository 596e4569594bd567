import { beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import { adminMadeTenant, api } from '#test/support/e2e.ts';
import { type AsOwner, approvedPrompt } from '#test/support/e2e-agents.ts';

/**
 * An MCP Server tool through the widget, against the local server as a client drives it: the
 * tenant points the tool at the local run's MCP stand-in (a real MCP server over HTTP, the SDK's
 * server side), refreshes its list, allows two of its tools, a SystemAdmin activates it, and a
 * visitor's turns call them: the read-only one at once, the other after a person approves it.
 */
const ORIGIN = 'https://desk.story.example';
const MCP = BUILT_IN_TOOLS.find((b) => b.code === 'mcp')!.id;

let as: AsOwner;
let widgetKey: string;

beforeAll(async () => {
  const t = await adminMadeTenant({ slugPrefix: 'mcp', planType: 2, maxAgents: 2, maxKnowledgeBases: 1 });
  as = (method, path, body) => api(method, path, { token: t.owner, body });
  const standIn = await api('GET', '/_local/mcp-stand-in');
  expect(standIn.status).toBe(200);
  const tool = await as('POST', '/api/tools', { displayName: 'Desk', baseToolId: MCP });
  expect(tool).toAnswer(201);
  const id = tool.json.result.id as string;
  expect(await as('PUT', `/api/tools/${id}/config`, { schema: { serverUrl: standIn.json.url } })).toAnswer(200);
  expect(await as('POST', `/api/tools/${id}/mcp/refresh`)).toAnswer(200);
  expect(
    await as('PUT', `/api/tools/${id}/config-params`, { allowedTools: ['lookup_order', 'create_ticket'] }),
  ).toAnswer(200);
  for (const move of ['approve', 'activate'])
    expect(await api('PUT', `/api/tools/${id}/${move}?tenantId=${t.tenantId}`, { token: t.admin })).toAnswer(200);
  const agent = await as('POST', '/api/ai/agents', {
    name: 'Desk helper',
    promptId: await approvedPrompt(as, 'Desk', 'You are {{agent_name}}.'),
    toolIds: [id],
  });
  expect(agent).toAnswer(201);
  const agentId = agent.json.result.id as string;
  expect(await as('POST', `/api/ai/agents/${agentId}/publish`)).toAnswer(200);
  const widget = await as('POST', `/api/ai/agents/${agentId}/widgets`, { name: 'Desk', allowedOrigins: [ORIGIN] });
  expect(widget).toAnswer(201);
  widgetKey = widget.json.result.widgetKey as string;
}, 120_000);

async function visitor() {
  const started = await api('POST', '/api/conversations/widget/sessions', {
    headers: { origin: ORIGIN },
    body: { widgetKey, visitor: { name: 'Vera', email: null }, locale: 'en' },
  });
  expect(started).toAnswer(201);
  const { conversationId, sessionToken } = started.json.result;
  const say = (text: string) =>
    api('POST', '/api/conversations/widget/messages', {
      headers: { 'x-widget-session': sessionToken, 'idempotency-key': crypto.randomUUID() },
      body: { text },
    });
  return { conversationId: conversationId as string, say };
}

describe('an MCP Server tool through the widget', () => {
  it("a visitor's turn calls the server's read-only tool and answers with its result", async () => {
    const v = await visitor();
    const turn = await v.say('desk_lookup_order {"orderId":"W-42"}');
    expect(turn).toAnswer(200);
    expect(turn.json.result.message.text).toMatch(/^The tool desk_lookup_order returned.*Order W-42: shipped/s);
  });

  it('a side-effecting tool waits for a person; approved from the inbox, it runs once on the server', async () => {
    const v = await visitor();
    const subject = `Broken zip ${crypto.randomUUID().slice(0, 8)}`;
    const turn = await v.say(`desk_create_ticket {"subject":"${subject}"}`);
    expect(turn).toAnswer(200);
    expect(turn.json.result.awaitingApproval).toBe(true);
    const tickets = async () =>
      ((await api('GET', '/_local/mcp-stand-in')).json.tickets as { subject: string }[]).filter(
        (t) => t.subject === subject,
      );
    expect(await tickets()).toEqual([]);
    const actions = await as('GET', `/api/conversations/${v.conversationId}/actions`);
    expect(actions).toAnswer(200);
    const actionId = actions.json.result[0].id as string;
    expect(await as('POST', `/api/conversations/${v.conversationId}/actions/${actionId}/approve`, {})).toAnswer(200);
    expect(await tickets()).toHaveLength(1);
  });
});
