import { createHash } from 'node:crypto';
import { keys } from '#shared/data/keys.ts';
import { config } from '#shared/platform/config.ts';
import type { OpeningHours } from './free-slots.ts';

/**
 * The calendars area's records. A calendar is a tenant item (`{t}#CALENDAR`); its appointments
 * are a child collection (newest first on gsi1, by start time on gsi2); each booked slot has a
 * claim item whose conditional put is what keeps two bookings out of one slot. The feed's secret
 * is found by its digest through a unique-value item, so the public feed never scans.
 */
export const calendars = {
  key: (tenantId: string, id: string) => keys.tenantItem(tenantId, 'CALENDAR', id),
  collection: (tenantId: string) => keys.tenantCollection(tenantId, 'CALENDAR'),
  appointment: (tenantId: string, calendarId: string, id: string) =>
    keys.childItem(tenantId, 'CALENDAR', calendarId, 'APPOINTMENT', id),
  appointments: (tenantId: string, calendarId: string) =>
    keys.childCollection(tenantId, 'CALENDAR', calendarId, 'APPOINTMENT'),
  /** One per booked slot start: the conditional write per slot. */
  slotClaim: (tenantId: string, calendarId: string, start: string) =>
    keys.childItem(tenantId, 'CALENDAR', calendarId, 'SLOT', start),
  feedLookup: (token: string) => keys.unique('CALENDAR_FEED', feedDigest(token)),
};

export const feedDigest = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
/** 32 random bytes: the feed URL is the only credential a calendar client carries. */
export const newFeedToken = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
export const FEED_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const FEED_PATH = '/api/calendar-feeds';
export const feedUrl = (token: string) => `${config.publicBaseUrl.replace(/\/$/, '')}${FEED_PATH}/${token}.ics`;

export interface CalendarRecord {
  id: string;
  tenantId: string;
  name: string;
  timeZone: string;
  weeklyHours: OpeningHours[];
  slotMinutes: number;
  bufferMinutes: number;
  horizonDays: number;
  feedToken: string;
  searchText: string;
  createdAt: string;
  updatedAt: string;
}

export const calendarItem = (c: CalendarRecord) => ({
  ...calendars.key(c.tenantId, c.id),
  ...keys.newestFirst(calendars.collection(c.tenantId), c.createdAt, c.id),
  ...c,
});

export const toCalendar = (c: CalendarRecord) => ({
  id: c.id,
  name: c.name,
  timeZone: c.timeZone,
  weeklyHours: c.weeklyHours,
  slotMinutes: c.slotMinutes,
  bufferMinutes: c.bufferMinutes,
  horizonDays: c.horizonDays,
  feedUrl: feedUrl(c.feedToken),
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

export const APPOINTMENT_STATUSES = ['Booked', 'Cancelled'] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];

export interface AppointmentRecord {
  id: string;
  tenantId: string;
  calendarId: string;
  start: string;
  end: string;
  name: string;
  email: string;
  status: AppointmentStatus;
  /** The iCalendar SEQUENCE: 0 when booked, one more for each move or the cancellation. */
  sequence: number;
  agentId: string | null;
  conversationId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** gsi2 orders a calendar's booked appointments by start; a cancelled one leaves it. */
export const byStart = (a: Pick<AppointmentRecord, 'tenantId' | 'calendarId' | 'start' | 'id'>) => ({
  gsi2pk: calendars.appointments(a.tenantId, a.calendarId),
  gsi2sk: `${a.start}#${a.id}`,
});

export const appointmentItem = (a: AppointmentRecord) => ({
  ...calendars.appointment(a.tenantId, a.calendarId, a.id),
  ...keys.newestFirst(calendars.appointments(a.tenantId, a.calendarId), a.createdAt, a.id),
  ...byStart(a),
  ...a,
});

/** The iCalendar UID: stable across moves and the cancellation, so clients update one event. */
export const appointmentUid = (a: Pick<AppointmentRecord, 'id'>) => `${a.id}@manage-schedule`;

export const toAppointment = (a: AppointmentRecord) => ({
  id: a.id,
  calendarId: a.calendarId,
  start: a.start,
  end: a.end,
  name: a.name,
  email: a.email,
  status: a.status,
  sequence: a.sequence,
  agentId: a.agentId,
  conversationId: a.conversationId,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});
