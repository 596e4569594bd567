import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { listAppointments, listSlots } from '#areas/calendars/appointments.ts';
import { calendarFeed } from '#areas/calendars/feed.ts';
import {
  createCalendar,
  deleteCalendar,
  getCalendar,
  listCalendars,
  rotateFeed,
  updateCalendar,
} from '#areas/calendars/manage-calendars.ts';
import { calendarRoutes } from '#areas/calendars/routes.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';

/** Wiring only: the logic is in areas/calendars; each route's tenant comes resolved from its declared scope. */
export const handler = apiHandler(
  calendarRoutes,
  {
    'ai.calendars.list': ({ tenantId, query }) => listCalendars(tenantId, query),
    'ai.calendars.create': ({ tenantId, body, principal }) => createCalendar(tenantId, body, principal),
    'ai.calendars.get': ({ tenantId, params }) => getCalendar(tenantId, params.calendarId),
    'ai.calendars.update': ({ tenantId, params, body, principal }) =>
      updateCalendar(tenantId, params.calendarId, body, principal),
    'ai.calendars.delete': ({ tenantId, params, principal }) => deleteCalendar(tenantId, params.calendarId, principal),
    'ai.calendars.slots': ({ tenantId, params, query }) => listSlots(tenantId, params.calendarId, query),
    'ai.calendars.appointments': ({ tenantId, params, query }) => listAppointments(tenantId, params.calendarId, query),
    'ai.calendars.rotateFeed': ({ tenantId, params, principal }) => rotateFeed(tenantId, params.calendarId, principal),
    'ai.calendars.feed': ({ params }) => calendarFeed(params.feedToken),
  },
  { tenants: tenantDirectory },
);
