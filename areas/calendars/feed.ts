import { get } from '#shared/data/read.ts';
import { notFound } from '#shared/http/errors.ts';
import { reply } from '#shared/http/responses.ts';
import { bookedBetween } from './appointments.ts';
import { feed } from './invitation.ts';
import { calendars, type CalendarRecord } from './records.ts';

/** What a feed carries: the last 90 days and everything ahead, at most this many events. */
const PAST_DAYS = 90;
const MAX_EVENTS = 2000;

/**
 * The public subscription feed. The token is the only credential: its digest finds the lookup,
 * and the calendar must still hold that very token, so a rotated or deleted one is 404 at once.
 */
export async function calendarFeed(feedToken: string) {
  const token = feedToken.replace(/\.ics$/, '');
  const lookup = await get<{ tenantId: string; calendarId: string }>(calendars.feedLookup(token));
  const c = lookup && (await get<CalendarRecord>(calendars.key(lookup.tenantId, lookup.calendarId)));
  if (!c || c.feedToken !== token) throw notFound('Calendar feed');
  const from = new Date(Date.now() - PAST_DAYS * 86_400_000).toISOString();
  const events = await bookedBetween(c, from, '9999', MAX_EVENTS);
  return reply.raw('text/calendar; charset=utf-8', feed(c, events), {
    headers: { 'cache-control': 'private, max-age=300', 'content-disposition': 'inline; filename="calendar.ics"' },
  });
}
