import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import { adminMadeTenant, api, e2e, until } from '#test/support/e2e.ts';
import { approvedPrompt } from '#test/support/e2e-agents.ts';

/**
 * Manage Schedule over HTTP on the local server: a calendar, a reviewed tool on it, an agent whose
 * playground turn books a slot; the invitation arrives in the local outbox and the booking in the
 * calendar's feed, which a rotation turns off.
 */
type Sent = { to: string[]; subject: string; invitation?: { method: string; ics: string } };

describe('Manage Schedule on the local server', () => {
  it('books through an agent turn, mails the invitation and serves the feed until it is rotated', async () => {
    const { admin, owner } = await adminMadeTenant({
      slugPrefix: 'sched',
      planType: 2,
      maxAgents: 2,
      maxKnowledgeBases: 1,
    });
    const as = (method: string, path: string, body?: unknown) => api(method, path, { token: owner, body });

    const cal = await as('POST', '/api/ai/calendars', {
      name: 'Consultations',
      timeZone: 'Europe/Berlin',
      weeklyHours: [{ day: 5, start: '09:00', end: '12:00' }],
      slotMinutes: 30,
      bufferMinutes: 15,
      horizonDays: 365,
    });
    expect(cal).toAnswer(201);
    const { id: calendarId, feedUrl } = cal.json.result as { id: string; feedUrl: string };
    expect(feedUrl.startsWith(e2e().baseUrl)).toBe(true);

    const baseToolId = BUILT_IN_TOOLS.find((b) => b.code === 'manage_schedule')!.id;
    const tool = await as('POST', '/api/tools', {
      displayName: 'Bookings',
      baseToolId,
      configParams: { calendarId, requiresApproval: false },
    });
    expect(tool).toAnswer(201);
    const toolId = tool.json.result.id as string;
    for (const step of ['approve', 'activate'])
      expect((await api('PUT', `/api/tools/${toolId}/${step}`, { token: admin })).status).toBe(200);

    const agent = await as('POST', '/api/ai/agents', {
      name: 'Desk',
      promptId: await approvedPrompt(as, 'Desk', 'You book.'),
      toolIds: [toolId],
    });
    expect(agent).toAnswer(201);

    const email = `ann-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const args = { action: 'book', start: '2027-03-26T08:00:00.000Z', name: 'Ann Example', email };
    const turn = await as('POST', `/api/ai/agents/${agent.json.result.id}/chat`, {
      messages: [{ role: 'user', content: `bookings ${JSON.stringify(args)}` }],
    });
    expect(turn).toAnswer(200);
    expect(turn.json.result.toolCalls).toMatchObject([{ name: 'bookings', status: 'ok' }]);
    expect(turn.json.result.message).toEqual(expect.stringMatching(/2027-03-26 09:00 \(Europe\/Berlin\)/));

    const outbox = await until(
      async () => (await api('GET', '/_local/outbox')).json as Sent[],
      (mails) => mails.some((m) => m.to.includes(email)),
    );
    const mail = outbox.find((m) => m.to.includes(email))!;
    expect(mail.invitation?.method).toBe('REQUEST');
    const invite = new ICAL.Component(ICAL.parse(mail.invitation!.ics));
    expect(invite.getFirstPropertyValue('method')).toBe('REQUEST');
    const event = new ICAL.Event(invite.getFirstSubcomponent('vevent')!);
    expect(event.startDate.toJSDate().toISOString()).toBe('2027-03-26T08:00:00.000Z');

    const feed = await fetch(feedUrl);
    expect(feed.status).toBe(200);
    expect(feed.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    const events = new ICAL.Component(ICAL.parse(await feed.text())).getAllSubcomponents('vevent');
    expect(events.map((e) => new ICAL.Event(e).uid)).toEqual([event.uid]);

    const appointments = await as('GET', `/api/ai/calendars/${calendarId}/appointments`);
    expect(appointments.json.result.items).toMatchObject([
      { email, status: 'Booked', start: '2027-03-26T08:00:00.000Z' },
    ]);

    const rotated = await as('POST', `/api/ai/calendars/${calendarId}/rotate-feed`);
    expect(rotated).toAnswer(200);
    expect((await fetch(feedUrl)).status).toBe(404);
    expect((await fetch(rotated.json.result.feedUrl)).status).toBe(200);
  });
});
