import { beforeAll, describe, expect, it, vi } from 'vitest';
import { closeIdleConversations } from '#areas/conversations/lifecycle.ts';
import { AGENTS } from '#test/support/agents.ts';
import { ORIGIN, WIDGET, publishedWidget, session, startSession, widgetIp } from '#test/support/conversations.ts';
import { inOneRateWindow, newTenant } from '#test/support/fixtures.ts';
import { caller, invoke } from '#test/support/invoke.ts';
import { testMailer } from '#test/support/test-ports.ts';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import { tokenFor } from '#test/support/tokens.ts';

let t: string;
let owner: string;
let member: string;
let ownerB: string;
let widget: Awaited<ReturnType<typeof publishedWidget>>;

beforeAll(async () => {
  t = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
  owner = await tokenFor({ tenantId: t });
  member = await tokenFor({ tenantId: t, role: 'TenantMember' });
  ownerB = await tokenFor({ tenantId: await newTenant({ planType: 2, maxAgents: 10 }) });
  widget = await publishedWidget(owner);
});

const inbox = (path: string, token = owner) => invoke('GET', `/api/conversations${path}`, { token });
const setStatus = (id: string, status: string, reason: string | null = null) =>
  invoke('PUT', `/api/conversations/${id}/status`, { token: owner, body: { status, reason } });

describe('widget sessions', () => {
  it('start: 201 with a session token, the agent and its welcome; the conversation is Open in the inbox', async () => {
    const res = await startSession(widget.widgetKey, {
      visitor: { name: 'Ada', email: 'ada@example.com' },
      locale: 'en-GB',
    });
    expect(res).toAnswer(201);
    expect(res.json.result).toMatchObject({ agent: { name: 'Support', welcomeMessage: 'Hi! How can I help?' } });
    expect(res.json.result.sessionToken).toMatch(/^ws\./);
    expect(Date.parse(res.json.result.expiresAt)).toBeGreaterThan(Date.now());
    const detail = await inbox(`/${res.json.result.conversationId}`);
    expect(detail).toAnswer(200);
    expect(detail.json.result).toMatchObject({
      status: 'Open',
      channel: 'widget',
      agentId: widget.agentId,
      widgetId: widget.widgetId,
      visitor: { name: 'Ada', email: 'ada@example.com' },
      locale: 'en-GB',
      messages: [],
    });
  });

  it('refuses an origin the widget does not allow (403), no Origin (403), an unknown key (401)', async () => {
    const wrong = await startSession(widget.widgetKey, {}, 'https://evil.example.com');
    expect(wrong).toAnswer(403, 'ORIGIN_NOT_ALLOWED');
    const none = await invoke('POST', `${WIDGET}/sessions`, { body: { widgetKey: widget.widgetKey }, ip: widgetIp() });
    expect(none.json.error.code).toBe('ORIGIN_NOT_ALLOWED');
    const unknown = await startSession(`wk_${'A'.repeat(43)}`);
    expect(unknown).toAnswer(401);
  });

  it('an Origin must be an allowed one exactly: one that only starts or ends like it is refused', async () => {
    for (const origin of [
      `${ORIGIN}.evil.example`,
      `${ORIGIN}:8443`,
      `${ORIGIN}/x`,
      ORIGIN.replace('https:', 'http:'),
      `https://evil.${ORIGIN.slice('https://'.length)}`,
    ]) {
      const res = await startSession(widget.widgetKey, {}, origin);
      expect([res.status, res.json.error?.code], origin).toEqual([403, 'ORIGIN_NOT_ALLOWED']);
    }
    expect(await startSession(widget.widgetKey, {}, ORIGIN)).toAnswer(201);
  });

  it('a rotated key ends new sessions at once; an inactive widget or unpublished agent is 409', async () => {
    const w = await publishedWidget(owner);
    const rotated = await invoke('POST', `/api/ai/widgets/${w.widgetId}/rotate-key`, { token: owner });
    expect(rotated).toAnswer(200);
    expect(await startSession(w.widgetKey)).toAnswer(401);
    const fresh = rotated.json.result.widgetKey as string;
    expect(await startSession(fresh)).toAnswer(201);

    await invoke('PUT', `/api/ai/widgets/${w.widgetId}`, { token: owner, body: { isActive: false } });
    const inactive = await startSession(fresh);
    expect([inactive.status, inactive.json.error.code]).toEqual([409, 'WIDGET_INACTIVE']);

    const w2 = await publishedWidget(owner);
    const open = await session(w2.widgetKey);
    expect(await invoke('POST', `${AGENTS}/${w2.agentId}/unpublish`, { token: owner })).toAnswer(200);
    const refused = await startSession(w2.widgetKey);
    expect([refused.status, refused.json.error.code]).toEqual([409, 'AGENT_NOT_PUBLISHED']);
    // A conversation already under way stops answering too, and stores nothing for it.
    const sent = await open.send('still there?');
    expect([sent.status, sent.json.error.code]).toEqual([409, 'AGENT_NOT_PUBLISHED']);
    expect((await open.messages()).json.result).toEqual([]);
  });

  it('a deleted agent stops answering its widgets', async () => {
    const w = await publishedWidget(owner);
    const open = await session(w.widgetKey);
    expect(await invoke('DELETE', `${AGENTS}/${w.agentId}`, { token: owner })).toAnswer(204);
    expect(await open.send('hello')).toAnswer(409);
    expect(await startSession(w.widgetKey)).not.toAnswer(201);
  });

  it('a session token opens only its own conversation: another id or a changed secret is 401', async () => {
    const one = await session(widget.widgetKey);
    const two = await session(widget.widgetKey);
    const [, tenant, , secret] = one.token.split('.');
    const forged = `ws.${tenant}.${two.conversationId}.${secret}`;
    const res = await invoke('GET', `${WIDGET}/messages`, { headers: { 'x-widget-session': forged }, ip: widgetIp() });
    expect(res).toAnswer(401);
    const tampered = `${one.token.slice(0, -2)}${one.token.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(
      await invoke('GET', `${WIDGET}/messages`, { headers: { 'x-widget-session': tampered }, ip: widgetIp() }),
    ).toAnswer(401);
    expect(await invoke('GET', `${WIDGET}/messages`, { ip: widgetIp() })).toAnswer(401);
  });

  it('a session is refused (401) once its two hours are over, and still taken just before', async () => {
    const s = await session(widget.widgetKey);
    const expiresAt = Date.parse(s.start.expiresAt);
    const clock = vi.spyOn(Date, 'now');
    try {
      clock.mockReturnValue(expiresAt - 1_000);
      expect(await s.messages()).toAnswer(200);
      clock.mockReturnValue(expiresAt + 1_000);
      const late = await s.messages();
      expect([late.status, late.json.error?.message]).toEqual([401, 'The widget session is invalid or has expired']);
    } finally {
      clock.mockRestore();
    }
  });

  it('every widget route shares 60 requests a minute per IP', async () => {
    const s = await session(widget.widgetKey);
    const ip = widgetIp();
    const statuses = await inOneRateWindow(async () => {
      const out: number[] = [];
      for (let i = 0; i < 30; i++) {
        out.push((await invoke('GET', `${WIDGET}/messages`, { headers: { 'x-widget-session': s.token }, ip })).status);
        out.push(
          (
            await invoke('POST', `${WIDGET}/sessions`, {
              body: { widgetKey: widget.widgetKey },
              headers: { origin: ORIGIN },
              ip,
            })
          ).status,
        );
      }
      out.push(
        (await invoke('POST', `${WIDGET}/escalate`, { headers: { 'x-widget-session': s.token }, body: {}, ip })).status,
      );
      return out;
    });
    expect(statuses.slice(0, 60).every((s) => s < 400)).toBe(true);
    expect(statuses[60]).toBe(429);
  });
});

describe('visitor messages', () => {
  it('are stored with the answer; GET messages lists them in order, `after` gives what is newer', async () => {
    const s = await session(widget.widgetKey);
    const res = await s.send('hello there');
    expect(res).toAnswer(200);
    expect(res.json.result).toMatchObject({
      message: { role: 'agent', text: 'You said: hello there' },
      citations: [],
      escalated: false,
    });
    const all = (await s.messages()).json.result as { id: string; role: string; text: string }[];
    expect(all.map((m) => [m.role, m.text])).toEqual([
      ['visitor', 'hello there'],
      ['agent', 'You said: hello there'],
    ]);
    expect(all[1]!.id).toBe(res.json.result.message.id);
    expect((await s.messages(all[0]!.id)).json.result.map((m: { id: string }) => m.id)).toEqual([all[1]!.id]);
    expect((await s.messages(all[1]!.id)).json.result).toEqual([]);
    const list = await inbox(`?search=hello%20there`);
    expect(list.json.result.items.map((c: { id: string }) => c.id)).toContain(s.conversationId);
  });

  it('the same Idempotency-Key is stored and answered once', async () => {
    const s = await session(widget.widgetKey);
    const key = { 'idempotency-key': 'msg-1' };
    const first = await s.send('once only', key);
    const again = await s.send('once only', key);
    expect(again).toAnswer(200);
    expect(again.json.result.message.id).toBe(first.json.result.message.id);
    expect((await s.messages()).json.result).toHaveLength(2);
    expect(await s.send('x', { 'idempotency-key': 'bad key!' })).toAnswer(400);
  });

  it('the model asking for a person escalates with its reason; the agent is then silent; staff replies reach the widget', async () => {
    const s = await session(widget.widgetKey);
    const res = await s.send('escalate_to_human {"reason":"refund dispute"}');
    expect(res).toAnswer(200);
    expect(res.json.result.escalated).toBe(true);
    const silent = await s.send('hello?');
    expect(silent.json.result).toEqual({ message: null, citations: [], escalated: true, awaitingApproval: false });
    const reply = await invoke('POST', `/api/conversations/${s.conversationId}/messages`, {
      token: owner,
      body: { text: 'Hi, I am Sam from support.' },
    });
    expect(reply).toAnswer(201);
    const seen = (await s.messages()).json.result as { role: string; text: string }[];
    expect(seen.filter((m) => m.role === 'human').map((m) => m.text)).toEqual(['Hi, I am Sam from support.']);
    const detail = (await inbox(`/${s.conversationId}`)).json.result;
    expect(detail).toMatchObject({ status: 'Escalated', escalationReason: 'refund dispute' });
    // Members read the inbox but do not reply (conversations:write); other tenants see nothing.
    expect(await inbox(`/${s.conversationId}`, member)).toAnswer(200);
    expect(
      await invoke('POST', `/api/conversations/${s.conversationId}/messages`, { token: member, body: { text: 'x' } }),
    ).toAnswer(403);
    expect(await inbox(`/${s.conversationId}`, ownerB)).toAnswer(404);
  });

  it('the turn limit escalates after maxTurnsBeforeEscalation answers', async () => {
    const w = await publishedWidget(owner, {
      escalation: { enabled: true, noAnswerThreshold: 0, maxTurnsBeforeEscalation: 2 },
    });
    const s = await session(w.widgetKey);
    expect((await s.send('one')).json.result.escalated).toBe(false);
    expect((await s.send('two')).json.result.escalated).toBe(true);
    expect((await inbox(`/${s.conversationId}`)).json.result.escalationReason).toBe('The turn limit was reached');
  });

  it('a closed conversation refuses new visitor messages with 409 CONVERSATION_CLOSED', async () => {
    const s = await session(widget.widgetKey);
    expect(await setStatus(s.conversationId, 'Closed')).toAnswer(200);
    const res = await s.send('anyone?');
    expect([res.status, res.json.error.code]).toEqual([409, 'CONVERSATION_CLOSED']);
    expect(await s.escalate()).toAnswer(409);
  });
});

describe('status, feedback and analytics', () => {
  it('moves only along the allowed states; the same status again changes nothing', async () => {
    const s = await session(widget.widgetKey);
    expect((await setStatus(s.conversationId, 'Escalated', 'billing')).json.result.status).toBe('Escalated');
    const back = await setStatus(s.conversationId, 'Open');
    expect([back.status, back.json.error.code]).toEqual([409, 'INVALID_STATUS_TRANSITION']);
    expect((await setStatus(s.conversationId, 'Resolved')).json.result.status).toBe('Resolved');
    expect(await setStatus(s.conversationId, 'Resolved')).toAnswer(200);
    expect(await s.send('hi')).toAnswer(409);
  });

  it('feedback once closes the conversation; again is 409; the record counts once under retried closes', async () => {
    const t2 = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
    const o2 = await tokenFor({ tenantId: t2 });
    const w = await publishedWidget(o2);
    const s = await session(w.widgetKey);
    await s.send('hello');
    const rated = await s.feedback(5, 'great');
    expect(rated).toAnswer(200);
    expect(rated.json.result).toMatchObject({ status: 'Closed', csat: 5 });
    expect(await s.feedback(4)).toAnswer(409);
    const retried = await Promise.all(
      [1, 2, 3].map(() =>
        invoke('PUT', `/api/conversations/${s.conversationId}/status`, { token: o2, body: { status: 'Closed' } }),
      ),
    );
    expect(retried.map((r) => r.status)).toEqual([200, 200, 200]);
    const support = await invoke('GET', '/api/analytics/support', { token: o2 });
    expect(support).toAnswer(200);
    expect(support.json.result).toMatchObject({ totalConversations: 1, csatScore: 5, csatResponses: 1 });
  });

  it('parallel closes of one conversation send one analytics record', async () => {
    const t3 = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
    const o3 = await tokenFor({ tenantId: t3 });
    const s = await session((await publishedWidget(o3)).widgetKey);
    const closes = await Promise.all(
      Array.from({ length: 6 }, () =>
        invoke('PUT', `/api/conversations/${s.conversationId}/status`, { token: o3, body: { status: 'Closed' } }),
      ),
    );
    expect(closes.every((r) => r.status === 200)).toBe(true);
    const support = await invoke('GET', '/api/analytics/support', { token: o3 });
    expect(support.json.result.totalConversations).toBe(1);
  });

  it('idle conversations close after 30 minutes with their analytics record; busy ones stay', async () => {
    const t4 = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
    const o4 = await tokenFor({ tenantId: t4 });
    const w = await publishedWidget(o4);
    const idle = await session(w.widgetKey);
    await idle.send('hello');
    const closedNow = await closeIdleConversations(Date.now());
    expect(closedNow).toBeGreaterThanOrEqual(0);
    expect((await invoke('GET', `/api/conversations/${idle.conversationId}`, { token: o4 })).json.result.status).toBe(
      'Open',
    );
    await closeIdleConversations(Date.now() + 31 * 60_000);
    const detail = (await invoke('GET', `/api/conversations/${idle.conversationId}`, { token: o4 })).json.result;
    expect(detail.status).toBe('Closed');
    expect(detail.messages.at(-1).text).toMatch(/idle/);
    expect(await idle.send('back')).toAnswer(409);
    const support = await invoke('GET', '/api/analytics/support', { token: o4 });
    expect(support.json.result.totalConversations).toBe(1);
  });
});

describe("a published agent's tools", () => {
  it('a tool sent back to review stops being offered and run by the version already published', async () => {
    const tools = caller('/api/tools', owner);
    const admin = caller('/api/tools', await tokenFor({ role: 'SystemAdmin' }));
    const created = await tools.post('', {
      displayName: 'Mail Desk',
      baseToolId: BUILT_IN_TOOLS.find((b) => b.code === 'send_email')?.id,
      description: 'Mails the desk',
      // Run unattended: this test is about review, not about a person approving each call.
      configParams: { allowedRecipients: ['acme.example'], requiresApproval: false },
    });
    expect(created).toAnswer(201);
    const toolId = created.json.result.id as string;
    expect(await admin.put(`/${toolId}/approve`)).toAnswer(200);
    expect((await admin.put(`/${toolId}/activate`)).json.result.status).toBe('ACTIVE');
    const s = await session((await publishedWidget(owner, { toolIds: [toolId] })).widgetKey);
    const ask = 'mail_desk {"to":"ann@acme.example","subject":"Lead","text":"Call back"}';
    const before = testMailer.outbox.length;
    const first = await s.send(ask);
    expect(first.json.result.message.text).toEqual(expect.stringMatching(/^The tool mail_desk returned: /));
    expect(testMailer.outbox.length).toBe(before + 1);

    // A recipient added after approval sends the tool back to review; the published version still names it.
    const widened = await tools.put(`/${toolId}`, {
      configParams: { allowedRecipients: ['acme.example', 'evil.example'] },
    });
    expect(widened.json.result.status).toBe('PENDING');
    const again = await s.send(ask);
    expect(again.json.result.message.text).toBe(`You said: ${ask}`);
    expect(testMailer.outbox.length).toBe(before + 1);
  });
});

describe('the inbox', () => {
  it('lists with filters, exports JSON and Markdown transcripts, and erases (owner only)', async () => {
    const t5 = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
    const o5 = await tokenFor({ tenantId: t5 });
    const m5 = await tokenFor({ tenantId: t5, role: 'TenantMember' });
    const w = await publishedWidget(o5);
    const a = await session(w.widgetKey, { visitor: { name: 'Grace', email: null } });
    const b = await session(w.widgetKey);
    await a.send('where is my order');
    await invoke('PUT', `/api/conversations/${b.conversationId}/status`, { token: o5, body: { status: 'Escalated' } });
    const list = (q: string) => invoke('GET', `/api/conversations${q}`, { token: o5 });
    expect((await list('')).json.result.totalCount).toBe(2);
    expect((await list('?status=Escalated')).json.result.items.map((c: { id: string }) => c.id)).toEqual([
      b.conversationId,
    ]);
    expect((await list('?search=grace')).json.result.items.map((c: { id: string }) => c.id)).toEqual([
      a.conversationId,
    ]);
    expect((await list(`?agentId=${w.agentId}&channel=widget`)).json.result.totalCount).toBe(2);
    const today = new Date().toISOString().slice(0, 10);
    expect((await list(`?startDate=${today}&endDate=${today}`)).json.result.totalCount).toBe(2);
    expect((await list('?endDate=2000-01-01')).json.result.totalCount).toBe(0);
    const item = (await list(`?search=grace`)).json.result.items[0];
    expect(item).toMatchObject({
      messageCount: 2,
      visitor: { name: 'Grace' },
      agentName: 'Support',
      channel: 'widget',
    });

    const md = await invoke('GET', `/api/conversations/${a.conversationId}/transcript?format=markdown`, { token: o5 });
    expect(md.json.result).toMatchObject({ format: 'markdown', contentType: 'text/markdown' });
    expect(md.json.result.content).toContain('**Visitor**');
    expect(md.json.result.content).toContain('> You said: where is my order');
    const js = await invoke('GET', `/api/conversations/${a.conversationId}/transcript`, { token: o5 });
    expect(JSON.parse(js.json.result.content).messages).toHaveLength(2);

    expect(await invoke('DELETE', `/api/conversations/${a.conversationId}`, { token: m5 })).toAnswer(403);
    expect(await invoke('DELETE', `/api/conversations/${a.conversationId}`, { token: ownerB })).toAnswer(404);
    expect(await invoke('DELETE', `/api/conversations/${a.conversationId}`, { token: o5 })).toAnswer(204);
    expect(await invoke('GET', `/api/conversations/${a.conversationId}`, { token: o5 })).toAnswer(404);
    expect(await a.messages()).toAnswer(401);
    expect((await list('')).json.result.totalCount).toBe(1);
    // Erasing an open conversation closed it first: analytics counted it and keeps it.
    const support = await invoke('GET', '/api/analytics/support', { token: o5 });
    expect(support.json.result.totalConversations).toBe(1);
  });
});
