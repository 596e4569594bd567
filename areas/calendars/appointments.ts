import { listNewestFirst } from '#shared/data/collection.ts';
import { bumpCounter } from '#shared/data/collection.ts';
import { commitChange, deleteItem, orConflict, putNew, updateItem, type Change } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { validationError } from '#shared/http/errors.ts';
import { isCalendarDay } from '#shared/routes/schemas.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { sendEmail } from '#shared/queue/email.ts';
import { logger } from '#shared/runtime/logger.ts';
import { slotTaken } from './errors.ts';
import { freeSlots, localWindow, MAX_RANGE_DAYS, type Slot } from './free-slots.ts';
import { invitation, invitationMail } from './invitation.ts';
import { readCalendar } from './manage-calendars.ts';
import {
  appointmentItem,
  byStart,
  calendars,
  toAppointment,
  type AppointmentRecord,
  type CalendarRecord,
} from './records.ts';
import { addDays, dayCount, wallTime } from './zone-time.ts';

/** A calendar's booked appointments that start within [from, to), by start time. */
export async function bookedBetween(c: Pick<CalendarRecord, 'tenantId' | 'id'>, from: string, to: string, max = 5000) {
  return queryItems<AppointmentRecord>(
    {
      TableName: config.tableName,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': calendars.appointments(c.tenantId, c.id), ':from': from, ':to': to },
    },
    max,
  );
}

/**
 * Free slots of the local days from..to. Appointments are read from a day before to a day after, so
 * one that ends just inside the range (or a buffer that reaches into it) still counts.
 */
export async function slotsOf(c: CalendarRecord, q: { from?: string; to?: string }, now = Date.now()): Promise<Slot[]> {
  // Every bound before any work: the range is the caller's (a widget visitor's, through the tool).
  for (const name of ['from', 'to'] as const)
    if (q[name] !== undefined && !isCalendarDay(q[name]))
      throw validationError([{ path: `query.${name}`, message: 'Give a calendar date YYYY-MM-DD' }]);
  const { today } = localWindow(c, now);
  const from = q.from ?? today;
  const to = q.to ?? addDays(from, 6);
  if (to < from) throw validationError([{ path: 'query.to', message: 'to must not be before from' }]);
  if (dayCount(from, to) > MAX_RANGE_DAYS)
    throw validationError([{ path: 'query.to', message: `At most ${MAX_RANGE_DAYS} days per question` }]);
  const busy = await bookedBetween(c, `${addDays(from, -2)}T00:00:00.000Z`, `${addDays(to, 2)}T23:59:59.999Z`);
  return freeSlots(c, from, to, busy, now);
}

export async function listSlots(tenantId: string, calendarId: string, q: { from?: string; to?: string }) {
  return slotsOf(await readCalendar(tenantId, calendarId), q);
}

export async function listAppointments(tenantId: string, calendarId: string, q: { page: number; pageSize: number }) {
  await readCalendar(tenantId, calendarId);
  const { items, totalCount } = await listNewestFirst<AppointmentRecord>(
    calendars.appointments(tenantId, calendarId),
    q,
  );
  return toPage(items.map(toAppointment), totalCount, q.page, q.pageSize);
}

/** Who books: the agent's turn, recorded in the audit entry instead of a user. */
export interface Booker {
  agentId: string;
  conversationId: string | null;
}

const change = (a: AppointmentRecord, action: string, changes: Change['changes']): Change => ({
  tenantId: a.tenantId,
  actor: null,
  entityType: 'Appointment',
  entityId: a.id,
  action,
  changes: { calendarId: a.calendarId, agentId: a.agentId, conversationId: a.conversationId, ...changes },
});

/** A requested start must be one of the free slots now, to the millisecond. */
async function freeSlotAt(c: CalendarRecord, start: string): Promise<Slot> {
  const t = Date.parse(start);
  if (Number.isNaN(t)) throw slotTaken();
  const day = wallTime(c.timeZone, t).date;
  const iso = new Date(t).toISOString();
  const slot = (await slotsOf(c, { from: day, to: day })).find((s) => s.start === iso);
  if (!slot) throw slotTaken();
  return slot;
}

const claim = (a: Pick<AppointmentRecord, 'tenantId' | 'calendarId' | 'start' | 'end' | 'id'>) => ({
  ...calendars.slotClaim(a.tenantId, a.calendarId, a.start),
  appointmentId: a.id,
  // Past claims guard nothing: they leave a week after the slot ends.
  ttl: Math.floor(Date.parse(a.end) / 1000) + 7 * 86_400,
});

/**
 * Queues the invitation after the change has committed: a queue that fails now leaves the booking
 * standing (undoing it could undo another's), and the tool tells the model no invitation went out.
 */
async function mailInvitation(c: CalendarRecord, a: AppointmentRecord, what: 'booked' | 'moved' | 'cancelled') {
  const method = what === 'cancelled' ? 'CANCEL' : 'REQUEST';
  try {
    await sendEmail({
      to: [a.email],
      ...invitationMail(c, a, what),
      invitation: { method, ics: invitation(c, a, method) },
    });
    return true;
  } catch (err) {
    logger.warn('invitation not queued', { appointmentId: a.id, what, errorName: (err as Error).name });
    return false;
  }
}

export type Outcome = { appointment: AppointmentRecord; invitationSent: boolean };

/**
 * Books a free slot. The slot's claim is a put-if-absent in the same transaction as the
 * appointment, so of two bookings racing for one slot exactly one commits; the other hears SLOT_TAKEN.
 */
export async function book(
  tenantId: string,
  calendarId: string,
  input: { start: string; name: string; email: string },
  by: Booker,
): Promise<Outcome> {
  const c = await readCalendar(tenantId, calendarId);
  const slot = await freeSlotAt(c, input.start);
  const now = new Date().toISOString();
  const a: AppointmentRecord = {
    id: crypto.randomUUID(),
    tenantId,
    calendarId,
    start: slot.start,
    end: slot.end,
    name: input.name,
    email: input.email.toLowerCase(),
    status: 'Booked',
    sequence: 0,
    agentId: by.agentId,
    conversationId: by.conversationId,
    createdAt: now,
    updatedAt: now,
  };
  await commitChange(
    [
      orConflict(putNew(claim(a)), slotTaken()),
      putNew(appointmentItem(a)),
      bumpCounter(calendars.appointments(tenantId, calendarId), 1),
    ],
    change(a, 'book', { start: a.start, end: a.end, email: a.email }),
    { now },
  );
  return { appointment: a, invitationSent: await mailInvitation(c, a, 'booked') };
}

/** The appointment of this person: another's id, or one already cancelled, is not found. */
export async function ownAppointment(tenantId: string, calendarId: string, appointmentId: string, email: string) {
  const a = await get<AppointmentRecord>(calendars.appointment(tenantId, calendarId, appointmentId), {
    consistent: true,
  });
  if (a?.status !== 'Booked' || a.email !== email.toLowerCase()) return null;
  return a;
}

const unchanged = (a: AppointmentRecord) => ({
  condition: '#status = :booked AND #sequence = :sequence',
  names: { '#status': 'status', '#sequence': 'sequence' },
  values: { ':booked': 'Booked', ':sequence': a.sequence },
});

/** Moves to another free slot: the new slot claimed and the old one freed in one transaction; the same UID, SEQUENCE + 1. */
export async function move(a: AppointmentRecord, start: string): Promise<Outcome> {
  const c = await readCalendar(a.tenantId, a.calendarId);
  const slot = await freeSlotAt(c, start);
  const now = new Date().toISOString();
  const moved: AppointmentRecord = { ...a, start: slot.start, end: slot.end, sequence: a.sequence + 1, updatedAt: now };
  await commitChange(
    [
      orConflict(putNew(claim(moved)), slotTaken()),
      deleteItem(calendars.slotClaim(a.tenantId, a.calendarId, a.start)),
      orConflict(
        updateItem(
          calendars.appointment(a.tenantId, a.calendarId, a.id),
          { start: moved.start, end: moved.end, sequence: moved.sequence, updatedAt: now, ...byStart(moved) },
          unchanged(a),
        ),
        'The appointment changed meanwhile',
      ),
    ],
    change(moved, 'move', { from: a.start, start: moved.start, sequence: moved.sequence }),
    { now },
  );
  return { appointment: moved, invitationSent: await mailInvitation(c, moved, 'moved') };
}

/** Cancels: the slot is free again, the appointment leaves the feed, and the attendee gets METHOD:CANCEL. */
export async function cancel(a: AppointmentRecord): Promise<Outcome> {
  const c = await readCalendar(a.tenantId, a.calendarId);
  const now = new Date().toISOString();
  const cancelled: AppointmentRecord = { ...a, status: 'Cancelled', sequence: a.sequence + 1, updatedAt: now };
  await commitChange(
    [
      deleteItem(calendars.slotClaim(a.tenantId, a.calendarId, a.start)),
      orConflict(
        updateItem(
          calendars.appointment(a.tenantId, a.calendarId, a.id),
          { status: 'Cancelled', sequence: cancelled.sequence, updatedAt: now },
          { ...unchanged(a), remove: ['gsi2pk', 'gsi2sk'] },
        ),
        'The appointment changed meanwhile',
      ),
    ],
    change(cancelled, 'cancel', { start: a.start, sequence: cancelled.sequence }),
    { now },
  );
  return { appointment: cancelled, invitationSent: await mailInvitation(c, cancelled, 'cancelled') };
}
