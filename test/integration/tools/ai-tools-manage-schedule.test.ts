import { beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import { queueSender } from '#shared/platform/ports.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { caller } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { berlin, CALENDARS, invitationsTo, newCalendar, scheduleCall, scheduleTool } from '#test/support/calendars.ts';
import { auditActions } from '#test/support/audit.ts';

/**
 * The Manage Schedule tool as an agent's turn runs it, against DynamoDB Local: find, book, move and
 * cancel for the person in the conversation; invitations parsed with ical.js; racing bookings.
 */
let tenantA: string;
let ownerA: string;
let ownerB: string;

beforeAll(async () => {
  tenantA = await newTenant({ planType: 2, maxAgents: 5 });
  const tenantB = await newTenant({ planType: 2, maxAgents: 5 });
  ownerA = await tokenFor({ tenantId: tenantA });
  ownerB = await tokenFor({ tenantId: tenantB });
});

const FRIDAY_9 = '2027-03-26T08:00:00.000Z';
const MONDAY_9 = '2027-03-29T07:00:00.000Z';
const newEmail = () => `p-${crypto.randomUUID().slice(0, 8)}@example.com`;
type Done = { ok: true; result: { appointmentId: string; start: string; local: string; status: string } };

describe('Manage Schedule tool', () => {
  it('finds free slots with their local time, at most 20', async () => {
    const c = await newCalendar(ownerA);
    const r = await scheduleCall(scheduleTool(c.id), tenantA, {
      action: 'find_slots',
      from: '2027-03-26',
      to: '2027-03-29',
    });
    expect(r).toMatchObject({ ok: true, result: { timeZone: 'Europe/Berlin', more: false } });
    const slots = (r as { result: { slots: { start: string; local: string }[] } }).result.slots;
    expect(slots).toHaveLength(8);
    expect(slots[0]).toEqual({
      start: FRIDAY_9,
      end: '2027-03-26T08:30:00.000Z',
      local: '2027-03-26 09:00 (Europe/Berlin)',
    });
    expect(slots[4]).toMatchObject({ start: MONDAY_9, local: '2027-03-29 09:00 (Europe/Berlin)' });
    const wide = await scheduleCall(scheduleTool(c.id), tenantA, {
      action: 'find_slots',
      from: '2027-03-01',
      to: '2027-03-31',
    });
    expect(wide).toMatchObject({ ok: true, result: { more: true } });
    expect((wide as { result: { slots: unknown[] } }).result.slots).toHaveLength(20);
  });

  it('books, moves across the daylight-saving change and cancels, with REQUEST, update and CANCEL for one UID', async () => {
    const c = await newCalendar(ownerA);
    const tool = scheduleTool(c.id);
    const email = newEmail();
    const who = { name: 'Ann Example', email };
    const booked = (await scheduleCall(tool, tenantA, { action: 'book', start: FRIDAY_9, ...who })) as Done;
    expect(booked).toMatchObject({
      ok: true,
      result: { start: FRIDAY_9, status: 'Booked', local: '2027-03-26 09:00 (Europe/Berlin)' },
    });
    const id = booked.result.appointmentId;
    const moved = await scheduleCall(tool, tenantA, { action: 'move', appointmentId: id, start: MONDAY_9, ...who });
    expect(moved).toMatchObject({ ok: true, result: { appointmentId: id, start: MONDAY_9 } });
    const cancelled = await scheduleCall(tool, tenantA, { action: 'cancel', appointmentId: id, ...who });
    expect(cancelled).toMatchObject({ ok: true, result: { appointmentId: id, status: 'Cancelled' } });

    const sent = invitationsTo(email);
    expect(sent.map((s) => [s.method, s.sequence, s.status])).toEqual([
      ['REQUEST', 0, 'CONFIRMED'],
      ['REQUEST', 1, 'CONFIRMED'],
      ['CANCEL', 2, 'CANCELLED'],
    ]);
    expect(new Set(sent.map((s) => s.uid))).toEqual(new Set([`${id}@manage-schedule`]));
    // 09:00 in Berlin both times: UTC+1 before the change, UTC+2 after it.
    expect(sent.map((s) => [s.start, berlin(s.start), berlin(s.end)])).toEqual([
      [FRIDAY_9, '26/03/2027, 09:00', '26/03/2027, 09:30'],
      [MONDAY_9, '29/03/2027, 09:00', '29/03/2027, 09:30'],
      [MONDAY_9, '29/03/2027, 09:00', '29/03/2027, 09:30'],
    ]);
    expect(sent[0]!.attendee.toLowerCase()).toBe(`mailto:${email}`);
    expect(sent[0]!.mail).toMatchObject({
      to: [email],
      subject: 'Appointment confirmed: Consultations, 2027-03-26 09:00 (Europe/Berlin)',
      invitation: { method: 'REQUEST' },
    });
    expect(sent[2]!.mail.subject).toEqual(expect.stringMatching(/^Appointment cancelled/));

    const list = await caller(CALENDARS, ownerA).get(`/${c.id}/appointments`);
    expect(list.json.result).toMatchObject({
      totalCount: 1,
      items: [
        { id, start: MONDAY_9, status: 'Cancelled', sequence: 2, email, name: 'Ann Example', agentId: 'agent-1' },
      ],
    });
    // Both slots are free again.
    const slots = await caller(CALENDARS, ownerA).get(`/${c.id}/slots?from=2027-03-26&to=2027-03-29`);
    expect(slots.json.result.map((s: { start: string }) => s.start)).toEqual(
      expect.arrayContaining([FRIDAY_9, MONDAY_9]),
    );
    expect(await auditActions(id)).toEqual(['book', 'move', 'cancel']);
  });

  it('gives one of ten racing bookings of one slot the slot; the others hear it is taken', async () => {
    const c = await newCalendar(ownerA);
    const tool = scheduleTool(c.id);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        scheduleCall(tool, tenantA, { action: 'book', start: FRIDAY_9, name: `Racer ${i}`, email: newEmail() }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual(
      Array(9).fill({ ok: false, error: expect.stringMatching(/^That time is not free/) }),
    );
    const list = await caller(CALENDARS, ownerA).get(`/${c.id}/appointments`);
    expect(list.json.result.totalCount).toBe(1);
    expect(list.json.result.items).toHaveLength(1);
  });

  it('gives racing moves of two appointments into one slot to exactly one', async () => {
    const c = await newCalendar(ownerA);
    const tool = scheduleTool(c.id);
    const people = [0, 1, 2, 3].map((i) => ({ name: `Mover ${i}`, email: newEmail() }));
    const starts = [
      '2027-03-29T07:45:00.000Z',
      '2027-03-29T08:30:00.000Z',
      '2027-03-29T09:15:00.000Z',
      '2027-03-30T07:00:00.000Z',
    ];
    const ids: string[] = [];
    for (const [i, p] of people.entries()) {
      const r = (await scheduleCall(tool, tenantA, { action: 'book', start: starts[i], ...p })) as Done;
      expect(r.ok, JSON.stringify(r)).toBe(true);
      ids.push(r.result.appointmentId);
    }
    const results = await Promise.all(
      people.map((p, i) =>
        scheduleCall(tool, tenantA, { action: 'move', appointmentId: ids[i], start: MONDAY_9, ...p }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const items = (await caller(CALENDARS, ownerA).get(`/${c.id}/appointments`)).json.result.items as {
      start: string;
    }[];
    expect(items.filter((a) => a.start === MONDAY_9)).toHaveLength(1);
  });

  it("touches only the person's own appointment: another e-mail or id moves and cancels nothing", async () => {
    const c = await newCalendar(ownerA);
    const tool = scheduleTool(c.id);
    const ann = { name: 'Ann', email: newEmail() };
    const booked = (await scheduleCall(tool, tenantA, { action: 'book', start: FRIDAY_9, ...ann })) as Done;
    const id = booked.result.appointmentId;
    const eve = { name: 'Eve', email: newEmail() };
    const refused = { ok: false, error: 'No booked appointment with this appointmentId for this e-mail address' };
    expect(await scheduleCall(tool, tenantA, { action: 'cancel', appointmentId: id, ...eve })).toEqual(refused);
    expect(await scheduleCall(tool, tenantA, { action: 'move', appointmentId: id, start: MONDAY_9, ...eve })).toEqual(
      refused,
    );
    expect(await scheduleCall(tool, tenantA, { action: 'cancel', appointmentId: 'nope', ...ann })).toEqual(refused);
    // Another calendar's tool in the same tenant does not reach it either.
    const other = await newCalendar(ownerA);
    expect(
      await scheduleCall(scheduleTool(other.id), tenantA, { action: 'cancel', appointmentId: id, ...ann }),
    ).toEqual(refused);
    expect(invitationsTo(eve.email)).toEqual([]);
    const items = (await caller(CALENDARS, ownerA).get(`/${c.id}/appointments`)).json.result.items;
    expect(items).toMatchObject([{ id, status: 'Booked', start: FRIDAY_9 }]);
  });

  it('refuses what it cannot do, in words the model can act on, and books nothing', async () => {
    const c = await newCalendar(ownerA);
    const tool = scheduleTool(c.id);
    const who = { name: 'Ann', email: newEmail() };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ action: 'dance' }, /^Give "action": find_slots, book, move or cancel/],
      [{ action: 'book', start: FRIDAY_9, name: 'Ann' }, /"email"/],
      [{ action: 'book', start: FRIDAY_9, name: 'Ann', email: 'a@b.c\r\nBcc: x@y.z' }, /"email"/],
      [{ action: 'book', start: FRIDAY_9, name: 'Ann\r\nBcc: x', email: who.email }, /"name"/],
      [{ action: 'book', start: FRIDAY_9, name: 'x'.repeat(101), email: who.email }, /"name"/],
      [{ action: 'book', ...who }, /"start"/],
      [{ action: 'book', start: 'tomorrow', ...who }, /^That time is not free/],
      // Off the grid, outside opening hours, in the past, beyond the horizon.
      [{ action: 'book', start: '2027-03-26T08:10:00.000Z', ...who }, /^That time is not free/],
      [{ action: 'book', start: '2027-03-27T08:00:00.000Z', ...who }, /^That time is not free/],
      [{ action: 'book', start: '2020-03-27T08:00:00.000Z', ...who }, /^That time is not free/],
      [{ action: 'book', start: '2031-03-28T07:00:00.000Z', ...who }, /^That time is not free/],
      [{ action: 'find_slots', from: 'next week' }, /YYYY-MM-DD/],
      [{ action: 'find_slots', from: '2027-03-01', to: '2027-06-01' }, /At most 31 days/],
    ];
    for (const [args, error] of cases) {
      const r = await scheduleCall(tool, tenantA, args);
      expect(r, JSON.stringify(args)).toEqual({ ok: false, error: expect.stringMatching(error) });
    }
    expect(await scheduleCall(scheduleTool(null), tenantA, { action: 'find_slots' })).toEqual({
      ok: false,
      error: 'This tool has no calendar configured; nothing was done',
    });
    expect(await scheduleCall(scheduleTool(crypto.randomUUID()), tenantA, { action: 'find_slots' })).toEqual({
      ok: false,
      error: "This tool's calendar no longer exists; nothing was done",
    });
    expect(invitationsTo(who.email)).toEqual([]);
    expect((await caller(CALENDARS, ownerA).get(`/${c.id}/appointments`)).json.result.totalCount).toBe(0);
  });

  it('sends at most 5 invitations per conversation an hour', async () => {
    const c = await newCalendar(ownerA);
    const tool = scheduleTool(c.id);
    const conversation = crypto.randomUUID();
    // 09:00, 09:45, 10:30 and 11:15 in Berlin's summer time.
    const slots = ['07:00', '07:45', '08:30', '09:15'].flatMap((t) => [
      `2027-04-05T${t}:00.000Z`,
      `2027-04-06T${t}:00.000Z`,
    ]);
    const results = [];
    for (const start of slots.slice(0, 6))
      results.push(
        await scheduleCall(tool, tenantA, { action: 'book', start, name: 'Ann', email: newEmail() }, conversation),
      );
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true, false]);
    expect(results[5]).toEqual({ ok: false, error: expect.stringMatching(/sent its 5 invitations for this hour/) });
    expect((await caller(CALENDARS, ownerA).get(`/${c.id}/appointments`)).json.result.totalCount).toBe(5);
  });

  it('keeps a booking whose invitation could not be queued, and says so', async () => {
    const c = await newCalendar(ownerA);
    const email = newEmail();
    const queue = await queueSender();
    queueSender.install({
      send: async (name, message) => {
        if ((message.payload as { to?: string[] }).to?.includes(email)) throw new Error('queue down');
        return queue.send(name, message);
      },
    });
    try {
      const r = await scheduleCall(scheduleTool(c.id), tenantA, {
        action: 'book',
        start: FRIDAY_9,
        name: 'Ann',
        email,
      });
      expect(r).toMatchObject({
        ok: true,
        result: {
          start: FRIDAY_9,
          status: 'Booked',
          invitationSentTo: null,
          note: expect.stringMatching(/could not be sent/),
        },
      });
    } finally {
      queueSender.install(queue);
    }
    const items = (await caller(CALENDARS, ownerA).get(`/${c.id}/appointments`)).json.result.items;
    expect(items).toMatchObject([{ email, status: 'Booked', start: FRIDAY_9 }]);
    expect(invitationsTo(email)).toEqual([]);
  });

  it("takes the tenant's own calendar as its step 2 parameter (400 for another's)", async () => {
    const mine = await newCalendar(ownerA);
    const theirs = await newCalendar(ownerB);
    const baseToolId = BUILT_IN_TOOLS.find((b) => b.code === 'manage_schedule')!.id;
    const tools = caller('/api/tools', ownerA);
    const bad = await tools.post('', { displayName: 'Bookings', baseToolId, configParams: { calendarId: theirs.id } });
    expect(bad).toAnswer(400);
    expect(bad.json.error.details).toEqual([
      { path: 'body.configParams.calendarId', message: 'No calendar with this id' },
    ]);
    const ok = await tools.post('', { displayName: 'Bookings', baseToolId, configParams: { calendarId: mine.id } });
    expect(ok).toAnswer(201);
    const params = await tools.get(`/${ok.json.result.id}/config-params`);
    expect(params.json.result.calendarId).toBe(mine.id);
    const httpTool = BUILT_IN_TOOLS.find((b) => b.code === 'http_request')!.id;
    expect(
      await tools.post('', { displayName: 'Web', baseToolId: httpTool, configParams: { calendarId: mine.id } }),
    ).toAnswer(400);
  });
});
