import { beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import { useChannelStandIn } from '#test/support/channel-stand-in.ts';
import { activeToolVia, AGENTS, newPrompt } from '#test/support/agents.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { caller } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * The five send-message tools: configured through the tools routes with a connection of
 * their platform and the recipients they may write to; the agent's call goes out through the
 * channels queue and the platform's API, as the local channel stand-in records it.
 */
const { recorded } = useChannelStandIn();
let tools: ReturnType<typeof caller>;
let owner: string;
let agents: ReturnType<typeof caller>;
let ai: ReturnType<typeof caller>;
let promptId: string;

beforeAll(async () => {
  const t = await newTenant({ planType: 2, maxAgents: 10 });
  owner = await tokenFor({ tenantId: t });
  tools = caller('/api/tools', owner);
  agents = caller(AGENTS, owner);
  ai = caller('/api/ai', owner);
  promptId = await newPrompt(owner);
});

async function telegramChannel() {
  const res = await ai.post('/channels', {
    type: 'telegram',
    name: `Bot ${crypto.randomUUID().slice(0, 6)}`,
    agentId: (await agents.post('', { name: 'Owner of the bot', promptId })).json.result.id,
    secrets: { 'bot-token': '123456:bot-token-secret', 'secret-token': 'tg_secret_token_0123456789' },
  });
  expect(res).toAnswer(201);
  return res.json.result.id as string;
}

// Run unattended: these tests are about the executor; approval is test/integration/agents/ai-approvals.test.ts.
const activeTool = (code: string, displayName: string, configParams: Record<string, unknown>) =>
  activeToolVia(owner, code, displayName, { requiresApproval: false, ...configParams });

async function chat(toolId: string, content: string) {
  const agent = await agents.post('', {
    name: `Agent ${crypto.randomUUID().slice(0, 6)}`,
    promptId,
    toolIds: [toolId],
  });
  expect(agent).toAnswer(201);
  const res = await agents.post(`/${agent.json.result.id}/chat`, { messages: [{ role: 'user', content }] });
  expect(res).toAnswer(200);
  return res.json.result as { message: string; toolCalls: { name: string; status: string; result: string }[] };
}

describe('send-message tools', () => {
  it('send through the configured connection to a configured recipient, and to no one else', async () => {
    const channelId = await telegramChannel();
    const toolId = await activeTool('send_telegram_message', 'Notify Customer', {
      channelId,
      allowedChannelRecipients: ['4242'],
    });
    const ok = await chat(toolId, 'notify_customer {"to":"4242","text":"Your order has shipped"}');
    expect(ok.toolCalls[0]).toMatchObject({ name: 'notify_customer', status: 'ok' });
    const calls = await recorded();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ channel: 'telegram' });
    expect(JSON.stringify(calls[0])).toContain('Your order has shipped');
    expect(JSON.stringify(calls[0])).toContain('4242');

    const refused = await chat(toolId, 'notify_customer {"to":"9999","text":"spam"}');
    expect(refused.toolCalls[0]).toMatchObject({ status: 'error', result: expect.stringMatching(/not allowed/) });
    expect(await recorded()).toHaveLength(1);
  });

  it('refuses a connection of another platform or tenant, and a connection on a tool that sends nothing', async () => {
    const channelId = await telegramChannel();
    const slack = BUILT_IN_TOOLS.find((b) => b.code === 'send_slack_message')!.id;
    const wrongType = await tools.post('', { displayName: 'Slack It', baseToolId: slack, configParams: { channelId } });
    expect(wrongType).toAnswer(400);
    expect(wrongType.json.error.details[0]).toMatchObject({ path: 'body.configParams.channelId' });
    const other = await tools.post('', {
      displayName: 'Other',
      baseToolId: BUILT_IN_TOOLS.find((b) => b.code === 'send_telegram_message')!.id,
      configParams: { channelId: crypto.randomUUID() },
    });
    expect(other).toAnswer(400);
    const http = BUILT_IN_TOOLS.find((b) => b.code === 'http_request')!.id;
    expect(await tools.post('', { displayName: 'Web', baseToolId: http, configParams: { channelId } })).toAnswer(400);
  });

  it('a new recipient on an active tool sends it back to review', async () => {
    const channelId = await telegramChannel();
    const toolId = await activeTool('send_telegram_message', 'Ping', { channelId, allowedChannelRecipients: ['1'] });
    const res = await tools.put(`/${toolId}/config-params`, { allowedChannelRecipients: ['1', '2'] });
    expect(res).toAnswer(200);
    const detail = await tools.get(`/${toolId}/config`);
    expect(detail).toAnswer(200);
    expect(detail.json.result.status).toBe('PENDING');
  });

  it("WhatsApp: no free-form message outside 24 hours of the recipient's last message", async () => {
    const res = await ai.post('/channels', {
      type: 'whatsapp',
      name: 'Numbers',
      agentId: (await agents.post('', { name: 'WA agent', promptId })).json.result.id,
      settings: { phoneNumberId: '106540352242922' },
      secrets: { 'app-secret': 'app-secret-0123456789', 'verify-token': 'verify-0123456789', 'access-token': 'EAAG-x' },
    });
    expect(res).toAnswer(201);
    const toolId = await activeTool('send_whatsapp_message', 'Text Customer', {
      channelId: res.json.result.id,
      allowedChannelRecipients: ['4915112345678'],
    });
    const r = await chat(toolId, 'text_customer {"to":"4915112345678","text":"hello"}');
    expect(r.toolCalls[0]).toMatchObject({ status: 'error', result: expect.stringMatching(/24 hours/) });
    expect(await recorded()).toEqual([]);
  });
});
