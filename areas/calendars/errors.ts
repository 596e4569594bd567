import { defineError } from '#shared/http/errors.ts';

export const calendarLimitReached = defineError(
  409,
  'CALENDAR_LIMIT_REACHED',
  (max: number) => `A tenant has at most ${max} calendars`,
  { example: [20] },
);
export const calendarHasAppointments = defineError(
  409,
  'CALENDAR_HAS_APPOINTMENTS',
  'The calendar has upcoming appointments; cancel them first',
);
/** A sentinel the booking use cases throw and the tool turns into words for the model. */
export const slotTaken = defineError(409, 'SLOT_TAKEN', 'That time is no longer free', {
  internal: 'the Manage Schedule tool catches it and tells the model the time is taken',
});
