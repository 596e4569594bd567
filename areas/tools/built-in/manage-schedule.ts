import { once } from '#shared/routes/types.ts';
import {
  book,
  cancel,
  localLabel,
  move,
  ownAppointment,
  readCalendar,
  slotsOf,
  slotTaken,
} from '#areas/calendars/for-tools.ts';
import * as z from 'zod/mini';
import type { ToolItem } from '#areas/tools/records.ts';
import { ApiError } from '#shared/http/errors.ts';
import { EMAIL_PATTERN } from '#shared/routes/schemas.ts';
import { defineToolType, type ToolContext, type ToolOutcome } from './definition.ts';
import { releaseSends, takeSend } from './send-limits.ts';

/** How many free slots one answer gives the model: enough to offer a choice, bounded for its context. */
const MAX_SLOTS_SHOWN = 20;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// A person's name reaches an e-mail subject and an invitation: one line, no controls, bounded.
const CONTROL = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
const ACTIONS = 'find_slots, book, move or cancel';
const described = (description: string) => z.optional(z.string().check(z.meta({ description })));
const inputSchema = once(() =>
  z.strictObject({
    action: z
      .enum(['find_slots', 'book', 'move', 'cancel'], { error: `Give "action": ${ACTIONS}` })
      .check(z.meta({ description: 'find_slots first; book, move or cancel for the person you are talking to' })),
    from: described("find_slots: first day, YYYY-MM-DD in the calendar's time zone"),
    to: described('find_slots: last day, YYYY-MM-DD (at most 31 days)'),
    start: described('book, move: the start of one of the free slots, exactly as find_slots gave it'),
    appointmentId: described('move, cancel: the id the booking answered'),
    name: described("book, move, cancel: the person's name, from the conversation"),
    email: described("book, move, cancel: the person's e-mail address, from the conversation"),
  }),
);
type Args = z.output<ReturnType<typeof inputSchema>>;

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

function person(args: Args): { name: string; email: string } | string {
  const email = str(args.email).toLowerCase();
  if (!EMAIL_PATTERN.test(email) || email.length > 254)
    return 'Give the e-mail address of the person you are talking to as "email"';
  const name = str(args.name);
  if (!name || name.length > 100 || CONTROL.test(name))
    return 'Give the name of the person you are talking to as "name" (one line, at most 100 characters)';
  return { name, email };
}

/** A refusal in the model's words: a validation error's own messages rather than its summary. */
const refusalText = (err: ApiError) =>
  Array.isArray(err.details) && err.details.length
    ? (err.details as { message?: string }[]).map((d) => d.message).join('; ')
    : err.message;

/**
 * Manage Schedule: free slots, and booking, moving and cancelling for the person the agent talks
 * to. The calendar is the tool's step 2 parameter, never the model's choice; a move or cancel
 * must name the appointment and the e-mail it was booked with, so one visitor cannot touch
 * another's. Each booking, move and cancel sends an invitation e-mail, counted against the same
 * limits as the Send Email tool.
 */
async function schedule(tool: ToolItem, args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const calendarId = tool.configParams.calendarId;
  if (!calendarId) return { ok: false, error: 'This tool has no calendar configured; nothing was done' };
  let calendar: Awaited<ReturnType<typeof readCalendar>>;
  try {
    calendar = await readCalendar(ctx.tenantId, calendarId);
  } catch {
    return { ok: false, error: "This tool's calendar no longer exists; nothing was done" };
  }
  const action = args.action;
  const view = (a: { id: string; start: string; end: string; status: string }) => ({
    appointmentId: a.id,
    start: a.start,
    end: a.end,
    local: localLabel(calendar, a.start),
    status: a.status,
  });
  try {
    if (action === 'find_slots') {
      const from = str(args.from) || undefined;
      const to = str(args.to) || undefined;
      if ((from && !DAY.test(from)) || (to && !DAY.test(to)))
        return { ok: false, error: 'Give "from" and "to" as dates YYYY-MM-DD' };
      const slots = await slotsOf(calendar, { from, to });
      return {
        ok: true,
        result: {
          timeZone: calendar.timeZone,
          slots: slots.slice(0, MAX_SLOTS_SHOWN).map((s) => ({ ...s, local: localLabel(calendar, s.start) })),
          more: slots.length > MAX_SLOTS_SHOWN,
        },
      };
    }
    const who = person(args);
    if (typeof who === 'string') return { ok: false, error: who };
    let existing = null;
    if (action !== 'book') {
      const id = str(args.appointmentId);
      existing = UUID.test(id) ? await ownAppointment(ctx.tenantId, calendarId, id.toLowerCase(), who.email) : null;
      if (!existing)
        return { ok: false, error: 'No booked appointment with this appointmentId for this e-mail address' };
    }
    const start = str(args.start);
    if (action !== 'cancel' && !start)
      return { ok: false, error: 'Give "start" as one of the free slots\' start times' };
    const refusal = await takeSend(tool, ctx);
    if (refusal) return { ok: false, error: refusal.replace('e-mails', 'invitations') };
    try {
      const { appointment: done, invitationSent } =
        action === 'book'
          ? await book(
              ctx.tenantId,
              calendarId,
              { start, ...who },
              {
                agentId: ctx.agentId,
                conversationId: ctx.conversationId ?? null,
              },
            )
          : action === 'move'
            ? await move(existing!, start)
            : await cancel(existing!);
      if (!invitationSent) await releaseSends(tool, ctx);
      return {
        ok: true,
        result: invitationSent
          ? { ...view(done), invitationSentTo: done.email }
          : { ...view(done), invitationSentTo: null, note: 'Done, but the invitation e-mail could not be sent' },
      };
    } catch (err) {
      await releaseSends(tool, ctx);
      throw err;
    }
  } catch (err) {
    if (slotTaken.is(err)) return { ok: false, error: 'That time is not free (any more); find the free slots again' };
    if (err instanceof ApiError && err.status < 500) return { ok: false, error: refusalText(err) };
    throw err;
  }
}

/** Manage Schedule: only finding free slots leaves the calendar as it was. */
export const manageSchedule = defineToolType({
  codes: ['manage_schedule'],
  inputSchema,
  sideEffects: (args) => args.action !== 'find_slots',
  execute: schedule,
  // Its refusals speak to the model in its own words ("Give ..."), as its other answers do.
  refuseArguments: (issues) => `${issues.map((i) => i.message).join('; ')}; nothing was done`,
});
