/** What the tools area uses of the calendars area: the Manage Schedule tool's actions. */
export { book, cancel, move, ownAppointment, slotsOf } from './appointments.ts';
export { slotTaken } from './errors.ts';
export { localLabel } from './invitation.ts';
export { calendarExists, readCalendar } from './manage-calendars.ts';
export { toAppointment } from './records.ts';
