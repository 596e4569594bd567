import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant } from '#test/support/fixtures.ts';
import { caller, invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';
import {
  CALENDAR_BODY,
  CALENDARS,
  newCalendar,
  parseFeed,
  scheduleCall,
  scheduleTool,
} from '#test/support/calendars.ts';
import { auditActions } from '#test/support/audit.ts';

/** Tenant calendars through their routes: settings, free slots across a daylight-saving change, the feed and its rotation. */
let tenantA: string;
let ownerA: string;
let memberA: string;
let ownerB: string;
let owner: ReturnType<typeof caller>;

beforeAll(async () => {
  tenantA = await newTenant({ planType: 2, maxAgents: 5 });
  const tenantB = await newTenant({ planType: 2, maxAgents: 5 });
  ownerA = await tokenFor({ tenantId: tenantA });
  memberA = await tokenFor({ tenantId: tenantA, role: 'TenantMember' });
  ownerB = await tokenFor({ tenantId: tenantB });
  owner = caller(CALENDARS, ownerA);
});

const feedPath = (feedUrl: string) => new URL(feedUrl).pathname;

describe('calendars: create, read, change, list', () => {
  it('creates a calendar with a secret feed URL and an audit entry; reads and lists it', async () => {
    const c = await newCalendar(ownerA);
    expect(c).toMatchObject({ ...CALENDAR_BODY, id: expect.any(String) });
    expect(c.feedUrl).toEqual(expect.stringMatching(/^https?:\/\/[^/]+\/api\/calendar-feeds\/[A-Za-z0-9_-]{43}\.ics$/));
    expect((await owner.get(`/${c.id}`)).json.result).toEqual(c);
    expect(await caller(CALENDARS, memberA).get(`/${c.id}`)).toAnswer(200);
    const list = await owner.get('?pageSize=100');
    expect(list.json.result.items.map((x: { id: string }) => x.id)).toContain(c.id);
    expect(await auditActions(c.id)).toEqual(['create']);
  });

  it('changes only the given fields, audited; the secret stays out of the audit trail', async () => {
    const c = await newCalendar(ownerA);
    const res = await owner.put(`/${c.id}`, { slotMinutes: 45, name: 'Advice' });
    expect(res).toAnswer(200);
    expect(res.json.result).toMatchObject({ slotMinutes: 45, name: 'Advice', bufferMinutes: 15, feedUrl: c.feedUrl });
    expect(await auditActions(c.id)).toEqual(['create', 'update']);
  });

  it('refuses bad settings with 400 and the field', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ timeZone: 'Mars/Olympus' }, 'body.timeZone'],
      [{ weeklyHours: [{ day: 8, start: '09:00', end: '10:00' }] }, 'body.weeklyHours.0.day'],
      [{ weeklyHours: [{ day: 1, start: '10:00', end: '09:00' }] }, 'body.weeklyHours.0.end'],
      [{ weeklyHours: [{ day: 1, start: '9:00', end: '10:00' }] }, 'body.weeklyHours.0.start'],
      [
        {
          weeklyHours: [
            { day: 1, start: '09:00', end: '12:00' },
            { day: 1, start: '11:00', end: '13:00' },
          ],
        },
        'body.weeklyHours',
      ],
      [{ slotMinutes: 5 }, 'body.slotMinutes'],
      [{ bufferMinutes: -1 }, 'body.bufferMinutes'],
      [{ horizonDays: 366 }, 'body.horizonDays'],
      [{ name: 'Visit www.spam.example' }, 'body.name'],
    ];
    for (const [body, path] of bad) {
      const res = await owner.post('', { ...CALENDAR_BODY, ...body });
      expect(res, JSON.stringify(body)).toAnswer(400, 'VALIDATION_ERROR');
      expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });

  it('needs ai:manage to write, AI agents in the plan, and keeps tenants apart (404)', async () => {
    const member = caller(CALENDARS, memberA);
    expect(await member.post('', CALENDAR_BODY)).toAnswer(403);
    const c = await newCalendar(ownerA);
    expect(await member.put(`/${c.id}`, { name: 'X' })).toAnswer(403);
    expect(await member.post(`/${c.id}/rotate-feed`)).toAnswer(403);
    const other = caller(CALENDARS, ownerB);
    for (const res of [
      await other.get(`/${c.id}`),
      await other.put(`/${c.id}`, { name: 'Mine' }),
      await other.del(`/${c.id}`),
      await other.get(`/${c.id}/slots`),
      await other.get(`/${c.id}/appointments`),
      await other.post(`/${c.id}/rotate-feed`),
    ])
      expect(res.status).toBe(404);
    const freeTenant = await newTenant({ planType: 1, aiAgentsEnabled: false });
    const res = await caller(CALENDARS, await tokenFor({ tenantId: freeTenant })).post('', CALENDAR_BODY);
    expect(res).toAnswer(403, 'FEATURE_NOT_IN_PLAN');
  });

  it('stops at the per-tenant cap with 409 CALENDAR_LIMIT_REACHED, under parallel creates', async () => {
    const t = await newTenant({ planType: 2, maxAgents: 5 });
    const token = await tokenFor({ tenantId: t });
    const results = await Promise.all(
      Array.from({ length: 24 }, () => caller(CALENDARS, token).post('', CALENDAR_BODY)),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(20);
    expect(results.filter((r) => r.status === 409).map((r) => r.json.error.code)).toEqual(
      Array(4).fill('CALENDAR_LIMIT_REACHED'),
    );
    expect((await caller(CALENDARS, token).get('')).json.result.totalCount).toBe(20);
  });
});

describe('calendars: free slots', () => {
  it('answers the free slots of local days, at 09:00 Berlin time on both sides of the change to summer time', async () => {
    const c = await newCalendar(ownerA);
    const res = await owner.get(`/${c.id}/slots?from=2027-03-26&to=2027-03-29`);
    expect(res).toAnswer(200);
    expect(res.json.result.map((s: { start: string }) => s.start)).toEqual([
      '2027-03-26T08:00:00.000Z',
      '2027-03-26T08:45:00.000Z',
      '2027-03-26T09:30:00.000Z',
      '2027-03-26T10:15:00.000Z',
      '2027-03-29T07:00:00.000Z',
      '2027-03-29T07:45:00.000Z',
      '2027-03-29T08:30:00.000Z',
      '2027-03-29T09:15:00.000Z',
    ]);
    expect(res.json.result[0]).toEqual({ start: '2027-03-26T08:00:00.000Z', end: '2027-03-26T08:30:00.000Z' });
  });

  it('refuses a reversed or too long range, and answers nothing beyond the horizon', async () => {
    const c = await newCalendar(ownerA, { horizonDays: 1 });
    expect(await owner.get(`/${c.id}/slots?from=2027-03-29&to=2027-03-26`)).toAnswer(400);
    expect(await owner.get(`/${c.id}/slots?from=2027-03-01&to=2027-04-15`)).toAnswer(400);
    expect(await owner.get(`/${c.id}/slots?from=2027-02-30`)).toAnswer(400);
    expect((await owner.get(`/${c.id}/slots?from=2027-03-26&to=2027-03-29`)).json.result).toEqual([]);
  });
});

describe('calendars: the subscription feed', () => {
  it('serves the booked appointments as text/calendar; rotating stops the old URL (404)', async () => {
    const c = await newCalendar(ownerA);
    const tool = scheduleTool(c.id);
    const booked = await scheduleCall(tool, tenantA, {
      action: 'book',
      start: '2027-03-29T07:00:00.000Z',
      name: 'Ann Example',
      email: 'ann@example.com',
    });
    expect(booked, JSON.stringify(booked)).toMatchObject({ ok: true });
    const res = await invoke('GET', feedPath(c.feedUrl));
    expect(res).toAnswer(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const feed = parseFeed(res.text);
    expect(feed.method).toBeNull();
    expect(feed.name).toBe('Consultations');
    expect(feed.events).toEqual([
      {
        uid: expect.stringMatching(/@manage-schedule$/),
        sequence: 0,
        start: '2027-03-29T07:00:00.000Z',
        summary: 'Consultations: Ann Example',
      },
    ]);
    // Without the .ics suffix too: some clients drop it.
    expect(await invoke('GET', feedPath(c.feedUrl).replace(/\.ics$/, ''))).toAnswer(200);

    const rotated = await owner.post(`/${c.id}/rotate-feed`);
    expect(rotated).toAnswer(200);
    expect(rotated.json.result.feedUrl).not.toBe(c.feedUrl);
    expect(await invoke('GET', feedPath(c.feedUrl))).toAnswer(404);
    const again = await invoke('GET', feedPath(rotated.json.result.feedUrl));
    expect(again).toAnswer(200);
    expect(parseFeed(again.text).events).toHaveLength(1);
    expect(await auditActions(c.id)).toEqual(['create', 'rotate-feed']);
  });

  it('answers 404 for a token no calendar holds, 400 for one that is not a token', async () => {
    expect(await invoke('GET', `/api/calendar-feeds/${'A'.repeat(43)}.ics`)).toAnswer(404);
    expect(await invoke('GET', '/api/calendar-feeds/short')).toAnswer(400);
  });

  it('refuses to delete a calendar with an upcoming appointment (409); once cancelled it goes, and its feed with it', async () => {
    const c = await newCalendar(ownerA);
    const tool = scheduleTool(c.id);
    const args = { name: 'Bo', email: 'bo@example.com' };
    const r = await scheduleCall(tool, tenantA, { action: 'book', start: '2027-03-26T08:00:00.000Z', ...args });
    expect(r.ok).toBe(true);
    const del = await owner.del(`/${c.id}`);
    expect(del).toAnswer(409, 'CALENDAR_HAS_APPOINTMENTS');
    const appointmentId = (r as { result: { appointmentId: string } }).result.appointmentId;
    expect((await scheduleCall(tool, tenantA, { action: 'cancel', appointmentId, ...args })).ok).toBe(true);
    expect(await owner.del(`/${c.id}`)).toAnswer(204);
    expect(await owner.get(`/${c.id}`)).toAnswer(404);
    expect(await invoke('GET', feedPath(c.feedUrl))).toAnswer(404);
    expect(await auditActions(c.id)).toEqual(['create', 'delete']);
  });
});
