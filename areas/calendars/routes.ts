import * as z from 'zod/mini';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { nameText, pageOf, paging, searchTerm, uuid, utcDay } from '#shared/routes/schemas.ts';
import { featureNotInPlan } from '#areas/identity/for-calendars.ts';
import { calendarHasAppointments, calendarLimitReached } from './errors.ts';
import { MAX_RANGE_DAYS } from './free-slots.ts';
import { APPOINTMENT_STATUSES, FEED_PATH, FEED_TOKEN_PATTERN } from './records.ts';
import { CALENDAR_LIMITS, HHMM, overlappingDay } from './rules.ts';
import { TIME_ZONES } from './zone-time.ts';

/** Manage Schedule's calendars: opening hours, free slots, appointments and the subscription feed. */
const read = { kind: 'bearer', permission: 'ai:read' } as const;
const manage = { kind: 'bearer', roles: ['TenantOwner'], permission: 'ai:manage' } as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));

const ofTenant = scope.tenant({ tenantFrom: 'query' });
const ofBody = scope.tenant({ tenantFrom: 'body' });
/** A SystemAdmin may name a calendar by its id alone. */
const ofCalendar = scope.tenant({
  tenantFrom: 'query',
  record: { param: 'calendarId', collection: 'CALENDAR', label: 'Calendar' },
});

const L = CALENDAR_LIMITS;
const int = (min: number, max: number) => z.number().check(z.int(), z.minimum(min), z.maximum(max));
const hhmm = () => z.string().check(z.regex(HHMM, 'A time HH:MM, 00:00 to 24:00'));
const openingHours = () =>
  z.object({ day: int(1, 7), start: hhmm(), end: hhmm() }).check(
    z.refine((h) => h.start < h.end, { message: 'start must be before end', path: ['end'] }),
    z.meta({ examples: [{ day: 1, start: '09:00', end: '17:00' }] }),
  );
const weeklyHours = () =>
  z.array(openingHours()).check(
    z.maxLength(L.weeklyHours),
    z.refine((hours) => overlappingDay(hours) === null, 'Opening ranges of one day must not overlap'),
  );
/** The runtime's canonical IANA names (and UTC): a list, so the document and the fuzzers know every valid value. */
const timeZone = () =>
  z
    .enum(TIME_ZONES, { error: 'An IANA time zone such as Europe/Berlin' })
    .check(z.meta({ examples: ['Europe/Berlin'] }));
const fields = () => ({
  name: nameText(200),
  timeZone: timeZone(),
  weeklyHours: weeklyHours(),
  slotMinutes: int(L.slotMinutes.min, L.slotMinutes.max),
  bufferMinutes: int(L.bufferMinutes.min, L.bufferMinutes.max),
  horizonDays: int(L.horizonDays.min, L.horizonDays.max),
});

const calendar = once(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    timeZone: z.string(),
    weeklyHours: z.array(z.object({ day: z.number(), start: z.string(), end: z.string() })),
    slotMinutes: z.number(),
    bufferMinutes: z.number(),
    horizonDays: z.number(),
    feedUrl: z.string().check(
      z.meta({
        description: 'Secret subscription URL (iCalendar); rotate-feed replaces it and the old one answers 404',
      }),
    ),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
const appointment = once(() =>
  z.object({
    id: z.string(),
    calendarId: z.string(),
    start: z.string(),
    end: z.string(),
    name: z.string(),
    email: z.string(),
    status: z.enum(APPOINTMENT_STATUSES),
    sequence: z.number(),
    agentId: z.nullable(z.string()),
    conversationId: z.nullable(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
const calendarParams = once(() => z.object({ calendarId: uuid() }));
const C = '/api/ai/calendars';
const common = { group: 'calendars' } as const;

export const calendarRoutes = defineRoutes([
  {
    ...common,
    id: 'ai.calendars.list',
    method: 'GET',
    path: C,
    auth: read,
    scope: ofTenant,
    summary: 'List calendars, newest first; search matches the name',
    status: 200,
    schemas: () => ({
      query: z.object({ ...tenantQuery(), ...paging(), search: searchTerm() }),
      response: pageOf(calendar()),
    }),
  },
  {
    ...common,
    id: 'ai.calendars.create',
    method: 'POST',
    path: C,
    auth: manage,
    scope: ofBody,
    summary:
      `Create a calendar (at most ${L.calendarsPerTenant} per tenant): time zone, weekly opening hours (day 1 Monday ` +
      'to 7 Sunday), slot length, buffer between slots and how many days ahead it books; answers its secret feedUrl',
    status: 201,
    errors: [featureNotInPlan, calendarLimitReached],
    schemas: () => ({
      body: z.object({ ...fields(), tenantId: z.optional(uuid()) }),
      response: calendar(),
    }),
  },
  {
    ...common,
    id: 'ai.calendars.get',
    method: 'GET',
    path: `${C}/{calendarId}`,
    auth: read,
    scope: ofCalendar,
    summary: 'A calendar',
    status: 200,
    schemas: () => ({ params: calendarParams(), query: z.object(tenantQuery()), response: calendar() }),
  },
  {
    ...common,
    id: 'ai.calendars.update',
    method: 'PUT',
    path: `${C}/{calendarId}`,
    auth: manage,
    scope: ofCalendar,
    summary: 'Change a calendar; fields left out keep their value. Booked appointments stay where they are',
    status: 200,
    errors: [featureNotInPlan],
    schemas: () => {
      const f = fields();
      return {
        params: calendarParams(),
        query: z.object(tenantQuery()),
        body: z.object({
          name: z.optional(f.name),
          timeZone: z.optional(f.timeZone),
          weeklyHours: z.optional(f.weeklyHours),
          slotMinutes: z.optional(f.slotMinutes),
          bufferMinutes: z.optional(f.bufferMinutes),
          horizonDays: z.optional(f.horizonDays),
        }),
        response: calendar(),
      };
    },
  },
  {
    ...common,
    id: 'ai.calendars.delete',
    method: 'DELETE',
    path: `${C}/{calendarId}`,
    auth: manage,
    scope: ofCalendar,
    summary: 'Delete a calendar without upcoming appointments (409 CALENDAR_HAS_APPOINTMENTS); its feed answers 404',
    status: 204,
    errors: [calendarHasAppointments],
    schemas: () => ({ params: calendarParams(), query: z.object(tenantQuery()) }),
  },
  {
    ...common,
    id: 'ai.calendars.slots',
    method: 'GET',
    path: `${C}/{calendarId}/slots`,
    auth: read,
    scope: ofCalendar,
    summary:
      "Free slots of the local days from..to (YYYY-MM-DD in the calendar's time zone; default today and the next 6 " +
      `days; at most ${MAX_RANGE_DAYS} days), within the horizon; times in UTC`,
    status: 200,
    schemas: () => ({
      params: calendarParams(),
      query: z.object({ ...tenantQuery(), from: z.optional(utcDay()), to: z.optional(utcDay()) }),
      response: z.array(z.object({ start: z.string(), end: z.string() })),
    }),
  },
  {
    ...common,
    id: 'ai.calendars.appointments',
    method: 'GET',
    path: `${C}/{calendarId}/appointments`,
    auth: read,
    scope: ofCalendar,
    summary: "The calendar's appointments, newest booking first (cancelled ones included)",
    status: 200,
    schemas: () => ({
      params: calendarParams(),
      query: z.object({ ...tenantQuery(), ...paging() }),
      response: pageOf(appointment()),
    }),
  },
  {
    ...common,
    id: 'ai.calendars.rotateFeed',
    method: 'POST',
    path: `${C}/{calendarId}/rotate-feed`,
    auth: manage,
    scope: ofCalendar,
    summary: 'Give the calendar a new secret feed URL; the old one answers 404 from now on',
    status: 200,
    errors: [featureNotInPlan],
    schemas: () => ({ params: calendarParams(), query: z.object(tenantQuery()), response: calendar() }),
  },
  {
    ...common,
    id: 'ai.calendars.feed',
    method: 'GET',
    path: `${FEED_PATH}/{feedToken}`,
    credentialParams: ['feedToken'],
    auth: { kind: 'none' },
    scope: scope.public,
    summary:
      "A calendar's booked appointments as an iCalendar feed (text/calendar) for Google Calendar, Outlook and Apple " +
      'Calendar; the path is the secret feedUrl a calendar answers (404 after rotate-feed)',
    status: 200,
    rateLimit: { name: 'calendar-feed', limit: 60, windowSeconds: 60 },
    rawResponse: { contentType: 'text/calendar; charset=utf-8' },
    schemas: () => ({
      params: z.object({
        feedToken: z
          .string()
          .check(z.regex(new RegExp(`${FEED_TOKEN_PATTERN.source.slice(0, -1)}(?:\\.ics)?$`), 'Not a calendar feed')),
      }),
    }),
  },
]);
