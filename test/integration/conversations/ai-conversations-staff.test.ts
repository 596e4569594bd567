import { beforeAll, describe, expect, it } from 'vitest';
import { ESCALATION_NOTICE } from '#areas/conversations/escalation-notice.ts';
import { createUser } from '#areas/identity/user-accounts.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { publishedWidget, session } from '#test/support/conversations.ts';
import { newTenant, userRecord } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { testMailer } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { auditActions } from '#test/support/audit.ts';

let t: string;
let owner: string;
let member: string;
let ownerB: string;
let widget: Awaited<ReturnType<typeof publishedWidget>>;
const staff = `staff-${crypto.randomUUID().slice(0, 8)}@example.com`;
const reader = `reader-${crypto.randomUUID().slice(0, 8)}@example.com`;
const gone = `gone-${crypto.randomUUID().slice(0, 8)}@example.com`;

beforeAll(async () => {
  t = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
  owner = await tokenFor({ tenantId: t });
  member = await tokenFor({ tenantId: t, role: 'TenantMember' });
  ownerB = await tokenFor({ tenantId: await newTenant({ planType: 2, maxAgents: 10 }) });
  // Who holds conversations:write (the owner) hears of escalations; a reader and an inactive owner do not.
  await createUser(userRecord({ email: staff, tenantId: t, roles: ['TenantOwner'] }), null);
  await createUser(userRecord({ email: reader, tenantId: t, roles: ['TenantMember'] }), null);
  await createUser(userRecord({ email: gone, tenantId: t, roles: ['TenantOwner'], isActive: false }), null);
  widget = await publishedWidget(owner);
});

const api = (method: string, path: string, token = owner, body?: unknown) =>
  invoke(method, `/api/conversations${path}`, { token, body });
const noticesFor = (conversationId: string) =>
  testMailer.outbox.filter((m) => m.text.includes(`conversationId=${conversationId}`));

describe('the inbox list: last message and unread', () => {
  it("shows each conversation's last message; unread until a person reads or replies", async () => {
    const s = await session(widget.widgetKey);
    const fresh = (await api('GET', `?search=`)).json.result.items.find(
      (c: { id: string }) => c.id === s.conversationId,
    );
    expect(fresh).toMatchObject({ lastMessage: null, unread: false });
    expect(await s.send('where is my parcel?')).toAnswer(200);
    const row = async () =>
      (await api('GET', '?pageSize=100')).json.result.items.find((c: { id: string }) => c.id === s.conversationId);
    const after = await row();
    expect(after.unread).toBe(true);
    // The agent answered last: that is the preview.
    expect(after.lastMessage).toMatchObject({ role: 'agent' });
    expect(after.lastMessage.text.length).toBeGreaterThan(0);
    const read = await api('POST', `/${s.conversationId}/read`, member);
    expect(read).toAnswer(200);
    expect(read.json.result.unread).toBe(false);
    expect((await row()).unread).toBe(false);
    // A new visitor message is unread again; a person's reply reads it.
    await s.send('hello again');
    expect((await row()).unread).toBe(true);
    expect(await api('POST', `/${s.conversationId}/messages`, owner, { text: 'On its way.' })).toAnswer(201);
    expect(await row()).toMatchObject({
      unread: false,
      lastMessage: { role: 'human', text: 'On its way.' },
    });
    expect(await auditActions(s.conversationId)).toContain('ConversationRead');
    expect(await api('POST', `/${s.conversationId}/read`, ownerB)).toAnswer(404);
  });

  it('a long last message is cut in the preview', async () => {
    const s = await session(widget.widgetKey);
    await s.escalate('need a person');
    const long = `${'x'.repeat(300)} tail`;
    expect(await s.send(long)).toAnswer(200);
    const row = (await api('GET', '?pageSize=100')).json.result.items.find(
      (c: { id: string }) => c.id === s.conversationId,
    );
    expect(row.lastMessage.role).toBe('visitor');
    expect(row.lastMessage.text).toHaveLength(200);
    expect(row.lastMessage.text.endsWith('…')).toBe(true);
  });
});

describe('GET /api/conversations/{id}/messages', () => {
  it('pages the messages oldest first with `after`; every message once, in order', async () => {
    const s = await session(widget.widgetKey);
    for (const text of ['one', 'two', 'three']) expect((await s.send(text)).status).toBe(200);
    const all = (await api('GET', `/${s.conversationId}`)).json.result.messages.map((m: { id: string }) => m.id);
    expect(all).toHaveLength(6);
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const res = await api('GET', `/${s.conversationId}/messages?pageSize=4${after ? `&after=${after}` : ''}`, member);
      expect(res).toAnswer(200);
      seen.push(...res.json.result.items.map((m: { id: string }) => m.id));
      expect(res.json.result.hasMore).toBe(res.json.result.nextAfter !== null);
      after = res.json.result.nextAfter;
      pages++;
    } while (after);
    expect(pages).toBe(2);
    expect(seen).toEqual(all);
    const first = (await api('GET', `/${s.conversationId}/messages?pageSize=1`)).json.result;
    expect(first.items[0]).toMatchObject({ role: 'visitor', text: 'one', toolCalls: [], citations: [] });
  });

  it('refuses a bad cursor or page size (400) and answers 404 for another tenant', async () => {
    const s = await session(widget.widgetKey);
    for (const q of ['after=nope', 'pageSize=0', 'pageSize=101', 'pageSize=x']) {
      const res = await api('GET', `/${s.conversationId}/messages?${q}`);
      expect([res.status, res.json.error?.code], q).toEqual([400, 'VALIDATION_ERROR']);
    }
    expect(await api('GET', `/${s.conversationId}/messages`, ownerB)).toAnswer(404);
    expect(await api('GET', `/${crypto.randomUUID()}/messages`)).toAnswer(404);
  });
});

describe('hand-back', () => {
  it('Escalated -> Open: the agent answers again, with a note and an audit entry', async () => {
    const s = await session(widget.widgetKey);
    await s.escalate('billing');
    expect((await s.send('hello?')).json.result).toMatchObject({ message: null, escalated: true });
    expect(await api('POST', `/${s.conversationId}/hand-back`, member)).toAnswer(403);
    const res = await api('POST', `/${s.conversationId}/hand-back`);
    expect(res).toAnswer(200);
    expect(res.json.result.status).toBe('Open');
    const answer = await s.send('back to the bot');
    expect(answer.json.result.escalated).toBe(false);
    expect(answer.json.result.message.role).toBe('agent');
    const detail = (await api('GET', `/${s.conversationId}`)).json.result;
    expect(detail.messages.map((m: { text: string }) => m.text)).toContain('Handed back to the agent');
    expect(await auditActions(s.conversationId)).toContain('ConversationHandedBack');
  });

  it('is 409 from Open, Resolved and Closed; 404 for another tenant', async () => {
    const s = await session(widget.widgetKey);
    const open = await api('POST', `/${s.conversationId}/hand-back`);
    expect([open.status, open.json.error.code]).toEqual([409, 'INVALID_STATUS_TRANSITION']);
    await api('PUT', `/${s.conversationId}/status`, owner, { status: 'Resolved' });
    expect((await api('POST', `/${s.conversationId}/hand-back`)).json.error.code).toBe('INVALID_STATUS_TRANSITION');
    await api('PUT', `/${s.conversationId}/status`, owner, { status: 'Closed' });
    const closed = await api('POST', `/${s.conversationId}/hand-back`);
    expect([closed.status, closed.json.error.code]).toEqual([409, 'CONVERSATION_CLOSED']);
    expect(await api('POST', `/${s.conversationId}/hand-back`, ownerB)).toAnswer(404);
  });

  it('the turn limit counts from zero again after a hand-back', async () => {
    const w = await publishedWidget(owner, {
      escalation: { enabled: true, noAnswerThreshold: 0, maxTurnsBeforeEscalation: 2 },
    });
    const s = await session(w.widgetKey);
    await s.send('one');
    expect((await s.send('two')).json.result.escalated).toBe(true);
    expect(await api('POST', `/${s.conversationId}/hand-back`)).toAnswer(200);
    expect((await s.send('three')).json.result.escalated).toBe(false);
    expect((await s.send('four')).json.result.escalated).toBe(true);
  });
});

describe('escalation e-mail', () => {
  it('the visitor asking for a person e-mails the staff holding conversations:write: reason, last messages, link', async () => {
    await api('PUT', '/settings', owner, { escalationEmails: null });
    const s = await session(widget.widgetKey, { visitor: { name: 'Ada', email: 'ada@example.com' } });
    await s.send('my order <b>42</b> never came');
    expect(await s.escalate('refund dispute')).toAnswer(200);
    const notices = noticesFor(s.conversationId);
    expect(notices).toHaveLength(1);
    const [mail] = notices;
    expect(mail!.to).toEqual([staff]);
    expect(mail!.subject).toEqual(expect.stringMatching(/refund dispute/));
    expect(mail!.text).toEqual(expect.stringMatching(/Reason: refund dispute/));
    expect(mail!.text).toEqual(expect.stringMatching(/Visitor \(.*\): my order <b>42<\/b> never came/));
    expect(mail!.text).toEqual(expect.stringMatching(/Ada ada@example\.com needs a person/));
    // What the visitor wrote is data in the HTML, never markup.
    expect(mail!.html).toContain('my order &#60;b&#62;42&#60;/b&#62; never came');
    expect(mail!.html).toContain(`/inbox?conversationId=${s.conversationId}`);
    // Asking again while escalated sends nothing more.
    await s.escalate('still waiting');
    expect(noticesFor(s.conversationId)).toHaveLength(1);
  });

  it('the model and the turn limit escalate with their reasons, one e-mail each', async () => {
    const byModel = await session(widget.widgetKey);
    expect((await byModel.send('escalate_to_human {"reason":"angry customer"}')).json.result.escalated).toBe(true);
    expect(noticesFor(byModel.conversationId).map((m) => m.subject)).toEqual([expect.stringMatching(/angry customer/)]);
    const w = await publishedWidget(owner, {
      escalation: { enabled: true, noAnswerThreshold: 0, maxTurnsBeforeEscalation: 1 },
    });
    const byLimit = await session(w.widgetKey);
    expect((await byLimit.send('one')).json.result.escalated).toBe(true);
    expect(noticesFor(byLimit.conversationId).map((m) => m.text)).toEqual([
      expect.stringMatching(/Reason: The turn limit was reached/),
    ]);
  });

  it('a staff take-over by reply or status tells staff too; a repeated escalation event sends once', async () => {
    const s = await session(widget.widgetKey);
    await api('PUT', `/${s.conversationId}/status`, owner, { status: 'Escalated', reason: 'VIP' });
    expect(noticesFor(s.conversationId)).toHaveLength(1);
    // The same escalation queued again (a redelivery, a retried write): the worker sends nothing more.
    await enqueue(
      ESCALATION_NOTICE,
      { tenantId: t, conversationId: s.conversationId, escalation: 1 },
      { id: `escalation-notice:${t}:${s.conversationId}:1` },
    );
    expect(noticesFor(s.conversationId)).toHaveLength(1);
  });

  it('a hand-back and a new escalation is a new notice', async () => {
    const s = await session(widget.widgetKey);
    await s.escalate('first');
    await api('POST', `/${s.conversationId}/hand-back`);
    await s.escalate('second');
    expect(noticesFor(s.conversationId).map((m) => m.subject)).toEqual([
      expect.stringMatching(/first/),
      expect.stringMatching(/second/),
    ]);
  });

  it('PUT /settings names the addresses instead; [] tells nobody; null goes back to the staff', async () => {
    const set = await api('PUT', '/settings', owner, { escalationEmails: ['Desk@Example.com', 'desk@example.com'] });
    expect(set).toAnswer(200);
    expect(set.json.result.escalationEmails).toEqual(['desk@example.com']);
    expect((await api('GET', '/settings', member)).json.result.escalationEmails).toEqual(['desk@example.com']);
    const a = await session(widget.widgetKey);
    await a.escalate('x');
    expect(noticesFor(a.conversationId).map((m) => m.to)).toEqual([['desk@example.com']]);
    await api('PUT', '/settings', owner, { escalationEmails: [] });
    const b = await session(widget.widgetKey);
    await b.escalate('y');
    expect(noticesFor(b.conversationId)).toHaveLength(0);
    await api('PUT', '/settings', owner, { escalationEmails: null });
    expect(await auditActions(t)).toContain('ConversationSettingsUpdated');
  });

  it('settings: members cannot change them, bad addresses and more than 20 are 400, tenants are apart', async () => {
    expect(await api('PUT', '/settings', member, { escalationEmails: ['a@example.com'] })).toAnswer(403);
    for (const escalationEmails of [['not-an-email'], Array.from({ length: 21 }, (_, i) => `a${i}@example.com`), 'x']) {
      const res = await api('PUT', '/settings', owner, { escalationEmails });
      expect([res.status, res.json.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
    await api('PUT', '/settings', ownerB, { escalationEmails: ['b@example.com'] });
    expect((await api('GET', '/settings')).json.result.escalationEmails).toBeNull();
  });
});
