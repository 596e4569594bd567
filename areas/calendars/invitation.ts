import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import { config } from '#shared/platform/config.ts';
import { appointmentUid, type AppointmentRecord, type CalendarRecord } from './records.ts';
import { wallTime } from './zone-time.ts';

const PROD_ID = { company: 'saas', product: 'manage-schedule', language: 'EN' } as const;

export type InvitationMethod = 'REQUEST' | 'CANCEL';

/**
 * Times are written as UTC instants (`...Z`): RFC 5545 allows it, every client shows them in its
 * viewer's zone, and it needs no VTIMEZONE (ical-generator writes one only from a zone library).
 * The calendar's own zone travels as X-WR-TIMEZONE for clients that display it.
 */
function event(cal: ReturnType<typeof ical>, calendar: CalendarRecord, a: AppointmentRecord, status: ICalEventStatus) {
  cal.createEvent({
    id: appointmentUid(a),
    sequence: a.sequence,
    stamp: new Date(a.updatedAt),
    start: new Date(a.start),
    end: new Date(a.end),
    summary: `${calendar.name}: ${a.name}`,
    status,
    organizer: { name: calendar.name, email: config.mailFrom },
    attendees: [
      {
        name: a.name,
        email: a.email,
        rsvp: status !== ICalEventStatus.CANCELLED,
        role: ICalAttendeeRole.REQ,
        status: ICalAttendeeStatus.NEEDSACTION,
      },
    ],
  });
}

/** The invitation an attendee's client files: REQUEST books or moves (same UID, higher SEQUENCE); CANCEL removes. */
export function invitation(calendar: CalendarRecord, a: AppointmentRecord, method: InvitationMethod): string {
  const cal = ical({
    prodId: PROD_ID,
    method: method === 'CANCEL' ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
    x: { 'X-WR-TIMEZONE': calendar.timeZone },
  });
  event(cal, calendar, a, method === 'CANCEL' ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED);
  return cal.toString();
}

/** The subscription feed: the calendar's booked appointments, no METHOD (a published calendar, not a message). */
export function feed(calendar: CalendarRecord, appointments: AppointmentRecord[]): string {
  const cal = ical({ prodId: PROD_ID, name: calendar.name, x: { 'X-WR-TIMEZONE': calendar.timeZone } });
  for (const a of appointments) event(cal, calendar, a, ICalEventStatus.CONFIRMED);
  return cal.toString();
}

/** How a time reads to the attendee: the calendar's wall clock and zone. */
export function localLabel(calendar: Pick<CalendarRecord, 'timeZone'>, iso: string) {
  const w = wallTime(calendar.timeZone, Date.parse(iso));
  return `${w.date} ${w.time} (${calendar.timeZone})`;
}

const SUBJECTS = { booked: 'Appointment confirmed', moved: 'Appointment moved', cancelled: 'Appointment cancelled' };

/** The e-mail that carries an invitation: plain words beside the iCalendar part. */
export function invitationMail(
  calendar: CalendarRecord,
  a: AppointmentRecord,
  what: keyof typeof SUBJECTS,
): { subject: string; text: string; html: string } {
  const when = `${localLabel(calendar, a.start)}, ${Math.round((Date.parse(a.end) - Date.parse(a.start)) / 60_000)} minutes`;
  const subject = `${SUBJECTS[what]}: ${calendar.name}, ${localLabel(calendar, a.start)}`;
  const line =
    what === 'cancelled'
      ? `Your appointment with ${calendar.name} on ${when} is cancelled.`
      : `Your appointment with ${calendar.name} is on ${when}. The invitation is attached.`;
  const text = `Hello ${a.name},\n\n${line}\n`;
  const esc = (s: string) =>
    s.replace(
      /[&<>"']/g,
      (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
    );
  return { subject, text, html: `<p>Hello ${esc(a.name)},</p><p>${esc(line)}</p>` };
}
