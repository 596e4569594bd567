import { beforeAll, describe, expect, it } from 'vitest';
import { expireOverdueActions } from '#areas/conversations/actions.ts';
import { conversationKey, type ConversationRecord, widgetSpend } from '#areas/conversations/records.ts';
import { commitChange, updateItem } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { config } from '#shared/platform/config.ts';
import { activeToolVia, AGENTS } from '#test/support/agents.ts';
import { telegramHeaders } from '#test/support/channel-signing.ts';
import { useChannelStandIn } from '#test/support/channel-stand-in.ts';
import { publishedWidget, session } from '#test/support/conversations.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { testMailer } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * A person approves the agent's side-effecting tool calls: the turn pauses (the visitor is told a
 * person will confirm), staff see the held call and approve or reject it, the tool runs once and the
 * agent goes on, on the widget, on a channel and in the playground; the race, the expiry.
 */
const standIn = useChannelStandIn();

let t: string;
let owner: string;
let member: string;
let ownerB: string;
let admin: string;

beforeAll(async () => {
  t = await newTenant({ planType: 2, maxAgents: 20, maxWidgetIntegrations: 40 });
  owner = await tokenFor({ tenantId: t });
  member = await tokenFor({ tenantId: t, role: 'TenantMember' });
  ownerB = await tokenFor({ tenantId: await newTenant({ planType: 2, maxAgents: 10 }) });
  admin = await tokenFor({ role: 'SystemAdmin' });
});

const sentTo = (marker: string) => testMailer.outbox.filter((m) => m.text === marker);
const actions = (conversationId: string, token = owner) =>
  invoke('GET', `/api/conversations/${conversationId}/actions`, { token });
const decide = (
  conversationId: string,
  actionId: string,
  verb: 'approve' | 'reject',
  token = owner,
  body: Record<string, unknown> = {},
) => invoke('POST', `/api/conversations/${conversationId}/actions/${actionId}/${verb}`, { token, body });

/** A widget whose agent has a Send Email tool (approval on by default), and a visitor asking for an e-mail. */
async function mailWidget(params: Record<string, unknown> = {}) {
  const toolId = await activeToolVia(owner, 'send_email', 'Mail Desk', {
    allowedRecipients: ['acme.example'],
    ...params,
  });
  const w = await publishedWidget(owner, { toolIds: [toolId] });
  const s = await session(w.widgetKey, { visitor: { name: 'Ada', email: null } });
  const marker = crypto.randomUUID();
  const ask = `mail_desk {"to":"ann@acme.example","subject":"Lead","text":"${marker}"}`;
  return { ...w, toolId, s, marker, ask };
}

async function pendingAction(conversationId: string) {
  const list = await actions(conversationId);
  expect(list).toAnswer(200);
  return list.json.result[0] as { id: string; status: string };
}

describe('the widget: pause, the staff decide, the agent goes on', () => {
  it('holds the call, tells the visitor, shows it to staff; approved, the tool runs once and the visitor gets the result', async () => {
    const { s, marker, ask } = await mailWidget();
    const first = await s.send(ask);
    expect(first).toAnswer(200);
    expect(first.json.result).toMatchObject({ awaitingApproval: true, escalated: false });
    expect(first.json.result.message.text).toEqual(expect.stringMatching(/member of our team needs to confirm/));
    expect(sentTo(marker)).toEqual([]);

    // The visitor's view while pending: the notice, nothing of the held call's arguments beyond their own message.
    const view = await s.messages();
    expect(view.json.result.map((m: { role: string }) => m.role)).toEqual(['visitor', 'agent']);
    expect(view.json.result[1].text).toEqual(expect.stringMatching(/confirm this before I go ahead/));

    const list = await actions(s.conversationId);
    expect(list).toAnswer(200);
    expect(list.json.result).toEqual([
      expect.objectContaining({
        tool: 'mail_desk',
        arguments: { to: 'ann@acme.example', subject: 'Lead', text: marker },
        status: 'Pending',
        requestedBy: 'Ada',
        decidedBy: null,
        decidedAt: null,
        result: null,
      }),
    ]);
    const actionId = list.json.result[0].id as string;

    // Only users allowed to act on the conversation: a member reads but may not decide; another tenant sees nothing.
    expect(await actions(s.conversationId, member)).toAnswer(200);
    expect(await decide(s.conversationId, actionId, 'approve', member)).toAnswer(403);
    expect(await actions(s.conversationId, ownerB)).toAnswer(404);
    expect(await decide(s.conversationId, actionId, 'approve', ownerB)).toAnswer(404);
    expect(sentTo(marker)).toEqual([]);

    const approved = await decide(s.conversationId, actionId, 'approve');
    expect(approved).toAnswer(200);
    expect(approved.json.result).toMatchObject({
      id: actionId,
      status: 'Done',
      decidedBy: { userId: expect.any(String) },
    });
    expect(approved.json.result.result).toEqual(expect.stringMatching(/queued/));
    expect(sentTo(marker)).toHaveLength(1);

    const after = await s.messages();
    const last = after.json.result.at(-1);
    expect(last.role).toBe('agent');
    expect(last.text).toEqual(expect.stringMatching(/^The tool mail_desk returned: .*queued/s));

    const again = await decide(s.conversationId, actionId, 'approve');
    expect(again).toAnswer(409, 'ACTION_ALREADY_DECIDED');
    expect(sentTo(marker)).toHaveLength(1);

    const audit = await invoke('GET', '/api/admin/audit-logs', {
      token: admin,
      query: { entityType: 'AgentAction', pageSize: 100 },
    });
    expect(audit.json.result.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ entityId: actionId, action: 'approve' })]),
    );
  });

  it("the resumed turn's tokens count against the widget's caps, for the session and the widget's day", async () => {
    const { s, ask } = await mailWidget();
    expect((await s.send(ask)).json.result.awaitingApproval).toBe(true);
    const c = (await get<ConversationRecord>(conversationKey(t, s.conversationId)))!;
    const now = Date.now();
    const spent = async () => {
      const k = widgetSpend(c, '', now);
      const [session, day] = await Promise.all([get<{ tokens: number }>(k.session), get<{ tokens: number }>(k.widget)]);
      return { session: Number(session?.tokens ?? 0), day: Number(day?.tokens ?? 0) };
    };
    const before = await spent();
    const approved = await decide(s.conversationId, (await pendingAction(s.conversationId)).id, 'approve');
    expect(approved).toAnswer(200);
    const resumed = (await s.messages()).json.result.at(-1) as { role: string };
    expect(resumed.role).toBe('agent');
    const after = await spent();
    expect(after.session).toBeGreaterThan(before.session);
    expect(after.day - before.day).toBe(after.session - before.session);
  });

  it('rejected with a reason: the tool never runs, the model is told and answers the visitor', async () => {
    const { s, marker, ask } = await mailWidget();
    await s.send(ask);
    const { id } = await pendingAction(s.conversationId);
    const rejected = await decide(s.conversationId, id, 'reject', owner, { reason: 'We do not e-mail leads' });
    expect(rejected).toAnswer(200);
    expect(rejected.json.result).toMatchObject({ status: 'Rejected', rejectReason: 'We do not e-mail leads' });
    expect(sentTo(marker)).toEqual([]);
    const last = (await s.messages()).json.result.at(-1);
    expect(last.text).toEqual(expect.stringMatching(/declined this call.*We do not e-mail leads/s));
    expect(await decide(s.conversationId, id, 'approve')).toAnswer(409);
    expect(sentTo(marker)).toEqual([]);
  });

  it('exactly once: eight approvals race against DynamoDB Local, one runs the tool and resumes the turn', async () => {
    const { s, marker, ask } = await mailWidget();
    await s.send(ask);
    const { id } = await pendingAction(s.conversationId);
    const results = await Promise.all(Array.from({ length: 8 }, () => decide(s.conversationId, id, 'approve')));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.json.error.code).toBe('ACTION_ALREADY_DECIDED');
    expect(sentTo(marker)).toHaveLength(1);
    const messages = (await s.messages()).json.result as { role: string; text: string }[];
    expect(messages.filter((m) => m.role === 'agent' && m.text.startsWith('The tool mail_desk returned'))).toHaveLength(
      1,
    );
  });

  it('expires: an undecided call past its time is Expired (rejected), the visitor is told, approval comes too late', async () => {
    const { s, marker, ask } = await mailWidget({ approvalTimeoutMinutes: 1 });
    await s.send(ask);
    const { id } = await pendingAction(s.conversationId);
    expect(await expireOverdueActions(Date.now() + 30_000)).toBe(0);
    expect(await expireOverdueActions(Date.now() + 120_000)).toBeGreaterThanOrEqual(1);
    const [expired] = (await actions(s.conversationId)).json.result;
    expect(expired).toMatchObject({ id, status: 'Expired', decidedBy: null });
    const late = await decide(s.conversationId, id, 'approve');
    expect(late).toAnswer(409, 'ACTION_ALREADY_DECIDED');
    expect(sentTo(marker)).toEqual([]);
    const last = (await s.messages()).json.result.at(-1);
    expect(last.text).toEqual(expect.stringMatching(/expired and did not run/));
  });

  it('a read-only tool call and a tool set to run unattended do not wait', async () => {
    const { s, marker, ask } = await mailWidget({ requiresApproval: false });
    const r = await s.send(ask);
    expect(r.json.result.awaitingApproval).toBe(false);
    expect(sentTo(marker)).toHaveLength(1);
    expect((await actions(s.conversationId)).json.result).toEqual([]);
  });

  it("counts the approvals in the agent's stats", async () => {
    const { s, ask, agentId } = await mailWidget();
    await s.send(ask);
    const { id } = await pendingAction(s.conversationId);
    await decide(s.conversationId, id, 'reject');
    const stats = await invoke('GET', `${AGENTS}/${agentId}/stats`, { token: owner });
    expect(stats).toAnswer(200);
    expect(stats.json.result.approvals).toMatchObject({ requested: 1, approved: 0, rejected: 1, expired: 0 });
    expect(stats.json.result.approvals.meanSecondsToDecision).toBeGreaterThanOrEqual(0);
  });
});

describe('tool step 2: requiresApproval', () => {
  it('defaults on for side-effecting types and off for reads; switching it off sends an active tool back to review', async () => {
    const mail = await activeToolVia(owner, 'send_email', 'Mailer', { allowedRecipients: ['acme.example'] });
    const http = await activeToolVia(owner, 'http_request', 'Fetcher', { allowedHosts: ['api.example.com'] });
    const params = async (id: string) =>
      (await invoke('GET', `/api/tools/${id}/config-params`, { token: owner })).json.result;
    expect(await params(mail)).toMatchObject({ requiresApproval: true, approvalTimeoutMinutes: 60 });
    expect(await params(http)).toMatchObject({ requiresApproval: false });
    const off = await invoke('PUT', `/api/tools/${mail}/config-params`, {
      token: owner,
      body: { requiresApproval: false },
    });
    expect(off).toAnswer(200);
    expect(off.json.result.requiresApproval).toBe(false);
    expect((await invoke('GET', `/api/tools/${mail}/config`, { token: owner })).json.result.status).toBe('PENDING');
    const bad = await invoke('PUT', `/api/tools/${http}/config-params`, {
      token: owner,
      body: { approvalTimeoutMinutes: 0 },
    });
    expect(bad).toAnswer(400);
  });
});

describe('a channel: the answer and the outcome go out on the platform', () => {
  it('Telegram: the notice is sent, then, once approved, the tool result', async () => {
    const { agentId, marker, ask } = await mailWidget();
    const secret = 'telegram_secret_token_0123456789';
    const conn = await invoke('POST', '/api/ai/channels', {
      token: owner,
      body: {
        type: 'telegram',
        name: 'tg',
        agentId,
        secrets: { 'secret-token': secret, 'bot-token': '123456:telegram-bot-token-secret' },
      },
    });
    expect(conn).toAnswer(201);
    const channelId = conn.json.result.id as string;
    const update = JSON.stringify({
      update_id: 777_001,
      message: {
        message_id: 1,
        from: { id: 9191, is_bot: false, first_name: 'Lin' },
        chat: { id: 9191, type: 'private' },
        date: Math.floor(Date.now() / 1000),
        text: ask,
      },
    });
    const res = await invoke('POST', `/api/webhooks/telegram/${channelId}`, {
      rawBody: update,
      headers: telegramHeaders(secret),
      contentType: 'application/json',
    });
    expect(res).toAnswer(200);
    const sent = async () =>
      (await standIn.recorded('telegram')).map((c) => JSON.parse(c.body) as { chat_id: string; text: string });
    expect(await sent()).toEqual([
      expect.objectContaining({ chat_id: '9191', text: expect.stringMatching(/needs to confirm/) }),
    ]);
    expect(sentTo(marker)).toEqual([]);

    const inbox = await invoke('GET', '/api/conversations', {
      token: owner,
      query: { channel: 'telegram', pageSize: 100 },
    });
    const conversationId = inbox.json.result.items[0].id as string;
    const { id } = await pendingAction(conversationId);
    expect((await actions(conversationId)).json.result[0]).toMatchObject({ requestedBy: 'Lin', status: 'Pending' });
    expect(await decide(conversationId, id, 'approve')).toAnswer(200);
    expect(sentTo(marker)).toHaveLength(1);
    const out = await sent();
    expect(out).toHaveLength(2);
    expect(out[1]!.text).toEqual(expect.stringMatching(/^The tool mail_desk returned/));
  });
});

describe('the playground: the caller approves inline', () => {
  it('answers pendingActions; a second request approves, the tool runs once and the turn goes on', async () => {
    const toolId = await activeToolVia(owner, 'send_email', 'Mail Desk', { allowedRecipients: ['acme.example'] });
    const { agentId } = await publishedWidget(owner, { toolIds: [toolId] });
    const marker = crypto.randomUUID();
    const chat = (body: Record<string, unknown>) => invoke('POST', `${AGENTS}/${agentId}/chat`, { token: owner, body });
    const first = await chat({
      messages: [{ role: 'user', content: `mail_desk {"to":"ann@acme.example","text":"${marker}"}` }],
    });
    expect(first).toAnswer(200);
    expect(first.json.result.pendingActions).toEqual([
      expect.objectContaining({ tool: 'mail_desk', arguments: { to: 'ann@acme.example', text: marker } }),
    ]);
    expect(sentTo(marker)).toEqual([]);
    const actionId = first.json.result.pendingActions[0].id as string;
    const second = await chat({ approveActionIds: [actionId] });
    expect(second).toAnswer(200);
    expect(second.json.result.message).toEqual(expect.stringMatching(/^The tool mail_desk returned/));
    expect(second.json.result.pendingActions).toEqual([]);
    expect(sentTo(marker)).toHaveLength(1);
    const third = await chat({ approveActionIds: [actionId] });
    expect(third).toAnswer(409);
    expect(sentTo(marker)).toHaveLength(1);
    // Another tenant cannot decide it.
    const foreign = await invoke('POST', `${AGENTS}/${agentId}/chat`, {
      token: ownerB,
      body: { rejectActionIds: [actionId] },
    });
    expect(foreign).toAnswer(404);
  });

  it('rejected inline: the model is told, and neither messages nor decisions is a 400', async () => {
    const toolId = await activeToolVia(owner, 'send_email', 'Mail Desk', { allowedRecipients: ['acme.example'] });
    const { agentId } = await publishedWidget(owner, { toolIds: [toolId] });
    const chat = (body: Record<string, unknown>) => invoke('POST', `${AGENTS}/${agentId}/chat`, { token: owner, body });
    const first = await chat({ messages: [{ role: 'user', content: 'mail_desk {"to":"ann@acme.example"}' }] });
    const actionId = first.json.result.pendingActions[0].id as string;
    const r = await chat({ rejectActionIds: [actionId] });
    expect(r).toAnswer(200);
    expect(r.json.result.message).toEqual(expect.stringMatching(/declined this call/));
    expect(await chat({})).toAnswer(400);
  });
});

describe('a turn paused by another deploy', () => {
  /** Rewrites the stored state of the playground's paused turn, as an earlier or a later deploy wrote it. */
  async function rewriteState(agentId: string, rewrite: (state: Record<string, unknown>) => Record<string, unknown>) {
    const pk = `${t}#AGENT#${agentId}#PAUSED`;
    const items = await queryItems<{ pk: string; sk: string; state: string }>({
      TableName: config.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
    });
    expect(items).toHaveLength(1);
    const state = rewrite(JSON.parse(items[0]!.state));
    await commitChange([updateItem({ pk: items[0]!.pk, sk: items[0]!.sk }, { state: JSON.stringify(state) })], null);
  }

  async function pausedPlayground() {
    const toolId = await activeToolVia(owner, 'send_email', 'Mail Desk', { allowedRecipients: ['acme.example'] });
    const { agentId } = await publishedWidget(owner, { toolIds: [toolId] });
    const marker = crypto.randomUUID();
    const chat = (body: Record<string, unknown>) => invoke('POST', `${AGENTS}/${agentId}/chat`, { token: owner, body });
    const first = await chat({
      messages: [{ role: 'user', content: `mail_desk {"to":"ann@acme.example","text":"${marker}"}` }],
    });
    expect(first).toAnswer(200);
    return { agentId, marker, chat, actionId: first.json.result.pendingActions[0].id as string };
  }

  it('resumes from the state shape written before versions', async () => {
    const p = await pausedPlayground();
    await rewriteState(p.agentId, ({ schemaVersion: _, ...before }) => before);
    const second = await p.chat({ approveActionIds: [p.actionId] });
    expect(second).toAnswer(200);
    expect(second.json.result.message).toEqual(expect.stringMatching(/^The tool mail_desk returned/));
    expect(sentTo(p.marker)).toHaveLength(1);
  });

  it('refuses, saying why, a state of a version this deploy does not know (the decision stands)', async () => {
    const p = await pausedPlayground();
    await rewriteState(p.agentId, (s) => ({ ...s, schemaVersion: 99 }));
    const second = await p.chat({ approveActionIds: [p.actionId] });
    expect([second.status, second.json?.error?.code], second.text).toEqual([409, 'PAUSED_TURN_UNREADABLE']);
    expect(second.json.error.message).toMatch(/version 99/);
  });

  it('a widget conversation whose paused state cannot be read gets a note, and stays usable', async () => {
    const { s, ask } = await mailWidget();
    expect(await s.send(ask)).toAnswer(200);
    const action = await pendingAction(s.conversationId);
    const paused = await queryItems<{ pk: string; sk: string; state: string }>({
      TableName: config.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `${t}#CONVERSATION#${s.conversationId}#PAUSED` },
    });
    const state = JSON.parse(paused[0]!.state);
    await commitChange(
      [
        updateItem(
          { pk: paused[0]!.pk, sk: paused[0]!.sk },
          { state: JSON.stringify({ ...state, schemaVersion: 99 }) },
        ),
      ],
      null,
    );
    const approved = await decide(s.conversationId, action.id, 'approve');
    expect(approved).toAnswer(200);
    const messages = (await s.messages()).json.result as { role: string; text: string }[];
    expect(messages.at(-1)).toMatchObject({ role: 'system', text: expect.stringMatching(/could not continue/) });
    const next = await s.send('and thanks');
    expect(next).toAnswer(200);
  });
});
