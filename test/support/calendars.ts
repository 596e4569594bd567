import ICAL from 'ical.js';
import { expect } from 'vitest';
import { runTool } from '#areas/tools/for-agents.ts';
import type { ToolItem } from '#areas/tools/records.ts';
import { caller } from './invoke.ts';
import { testMailer } from './test-ports.ts';

/** Helpers of the calendar tests: a calendar through the API, the tool as a turn runs it, invitations parsed with ical.js. */
export const CALENDARS = '/api/ai/calendars';

export const CALENDAR_BODY = {
  name: 'Consultations',
  timeZone: 'Europe/Berlin',
  weeklyHours: [1, 2, 3, 4, 5].map((day) => ({ day, start: '09:00', end: '12:00' })),
  slotMinutes: 30,
  bufferMinutes: 15,
  horizonDays: 365,
};

export async function newCalendar(token: string, body: Record<string, unknown> = {}) {
  const res = await caller(CALENDARS, token).post('', { ...CALENDAR_BODY, ...body });
  expect(res).toAnswer(201);
  return res.json.result as { id: string; feedUrl: string } & Record<string, unknown>;
}

export const scheduleTool = (calendarId: string | null) =>
  ({
    id: crypto.randomUUID(),
    displayName: 'Bookings',
    baseToolCode: 'manage_schedule',
    configParams: { calendarId },
  }) as unknown as ToolItem;

export const scheduleCall = (
  tool: ToolItem,
  tenantId: string,
  args: Record<string, unknown>,
  conversationId = crypto.randomUUID(),
) => runTool(tool, args, { tenantId, agentId: 'agent-1', requestId: crypto.randomUUID(), conversationId });

/** The invitations sent to one address, in order, parsed. */
export function invitationsTo(email: string) {
  return testMailer.outbox
    .filter((m) => m.to.includes(email))
    .map((m) => {
      expect(m.invitation, m.subject).toBeDefined();
      const cal = new ICAL.Component(ICAL.parse(m.invitation!.ics));
      const vevent = cal.getFirstSubcomponent('vevent')!;
      const event = new ICAL.Event(vevent);
      return {
        mail: m,
        method: cal.getFirstPropertyValue('method'),
        uid: event.uid,
        sequence: event.sequence,
        status: vevent.getFirstPropertyValue('status'),
        start: event.startDate.toJSDate().toISOString(),
        end: event.endDate.toJSDate().toISOString(),
        attendee: String(vevent.getFirstPropertyValue('attendee')),
      };
    });
}

export function parseFeed(text: string) {
  const cal = new ICAL.Component(ICAL.parse(text));
  return {
    method: cal.getFirstPropertyValue('method'),
    name: cal.getFirstPropertyValue('x-wr-calname'),
    events: cal.getAllSubcomponents('vevent').map((v) => {
      const e = new ICAL.Event(v);
      return { uid: e.uid, sequence: e.sequence, start: e.startDate.toJSDate().toISOString(), summary: e.summary };
    }),
  };
}

/** The wall clock of an instant in a zone, as a person there reads it. */
export const berlin = (iso: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Europe/Berlin',
    dateStyle: 'short',
    timeStyle: 'short',
  }).format(new Date(iso));
