import type { Principal } from '#shared/auth/access-token.ts';
import { listNewestFirst } from '#shared/data/collection.ts';
import {
  commitChange,
  deleteItem,
  orConflict,
  putNew,
  updateItem,
  type Change,
  type TransactItem,
} from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { get, getOr404 } from '#shared/data/read.ts';
import { notFound } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { requireAgents } from '#areas/identity/for-calendars.ts';
import { calendarHasAppointments, calendarLimitReached } from './errors.ts';
import { calendarItem, calendars, newFeedToken, toCalendar, type CalendarRecord } from './records.ts';
import { CALENDAR_LIMITS } from './rules.ts';

/** What a client sets on a calendar: the record's own settings. */
export type CalendarInput = Pick<
  CalendarRecord,
  'name' | 'timeZone' | 'weeklyHours' | 'slotMinutes' | 'bufferMinutes' | 'horizonDays'
>;

const change = (
  tenantId: string,
  actor: Principal | null,
  entityId: string,
  action: string,
  changes: Change['changes'],
) => ({ tenantId, actor, entityType: 'Calendar', entityId, action, changes }) satisfies Change;

/** The collection's counter, taken under the per-tenant cap in the create's own transaction. */
function calendarSlot(tenantId: string, by: 1 | -1): TransactItem {
  const counter = keys.counter(calendars.collection(tenantId));
  return {
    Update: {
      TableName: config.tableName,
      Key: counter,
      UpdateExpression: 'ADD #count :by',
      ...(by > 0 ? { ConditionExpression: 'attribute_not_exists(#count) OR #count < :max' } : {}),
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: by > 0 ? { ':by': by, ':max': CALENDAR_LIMITS.calendarsPerTenant } : { ':by': by },
    },
  };
}

/** The lookup the public feed finds its calendar by. */
const feedLookup = (c: Pick<CalendarRecord, 'tenantId' | 'id' | 'feedToken'>) => ({
  ...calendars.feedLookup(c.feedToken),
  tenantId: c.tenantId,
  calendarId: c.id,
});

export const readCalendar = (tenantId: string, calendarId: string, consistent = false) =>
  getOr404<CalendarRecord>(calendars.key(tenantId, calendarId), 'Calendar', { consistent });

/** Whether the tenant has this calendar (a tool's step 2 parameter names one). */
export const calendarExists = async (tenantId: string, calendarId: string) =>
  !!(await get(calendars.key(tenantId, calendarId), { attributes: ['pk'] }));

export async function getCalendar(tenantId: string, calendarId: string) {
  return toCalendar(await readCalendar(tenantId, calendarId));
}

export async function listCalendars(tenantId: string, q: { page: number; pageSize: number; search?: string }) {
  const { items, totalCount } = await listNewestFirst<CalendarRecord>(calendars.collection(tenantId), q);
  return toPage(items.map(toCalendar), totalCount, q.page, q.pageSize);
}

export async function createCalendar(tenantId: string, input: CalendarInput, actor: Principal) {
  await requireAgents(tenantId);
  const now = new Date().toISOString();
  const c: CalendarRecord = {
    id: crypto.randomUUID(),
    tenantId,
    name: input.name,
    timeZone: input.timeZone,
    weeklyHours: input.weeklyHours,
    slotMinutes: input.slotMinutes,
    bufferMinutes: input.bufferMinutes,
    horizonDays: input.horizonDays,
    feedToken: newFeedToken(),
    searchText: input.name.toLowerCase(),
    createdAt: now,
    updatedAt: now,
  };
  const { feedToken: _, searchText: __, ...audited } = c;
  await commitChange(
    [
      orConflict(calendarSlot(tenantId, 1), calendarLimitReached(CALENDAR_LIMITS.calendarsPerTenant)),
      putNew(calendarItem(c)),
      putNew(feedLookup(c)),
    ],
    change(tenantId, actor, c.id, 'create', audited),
    { now },
  );
  return toCalendar(c);
}

export async function updateCalendar(
  tenantId: string,
  calendarId: string,
  input: Partial<CalendarInput>,
  actor: Principal,
) {
  await requireAgents(tenantId);
  const c = await readCalendar(tenantId, calendarId, true);
  const set: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input))
    if (v !== undefined && JSON.stringify(v) !== JSON.stringify(c[k as keyof CalendarRecord])) set[k] = v;
  if (!Object.keys(set).length) return toCalendar(c);
  const now = new Date().toISOString();
  const changes = { ...set };
  if (typeof set.name === 'string') set.searchText = set.name.toLowerCase();
  await commitChange(
    [
      orConflict(
        updateItem(
          calendars.key(tenantId, calendarId),
          { ...set, updatedAt: now },
          { condition: 'attribute_exists(pk)' },
        ),
        notFound('Calendar'),
      ),
    ],
    change(tenantId, actor, calendarId, 'update', changes),
    { now },
  );
  return toCalendar({ ...c, ...set, updatedAt: now } as CalendarRecord);
}

/** Whether a booked appointment still lies ahead: one key-only read of the by-start index. */
async function hasUpcoming(tenantId: string, calendarId: string) {
  const found = await queryItems(
    {
      TableName: config.tableName,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk >= :now',
      ExpressionAttributeValues: {
        ':pk': calendars.appointments(tenantId, calendarId),
        ':now': new Date().toISOString(),
      },
    },
    1,
  );
  return found.length > 0;
}

export async function deleteCalendar(tenantId: string, calendarId: string, actor: Principal) {
  const c = await readCalendar(tenantId, calendarId, true);
  if (await hasUpcoming(tenantId, calendarId)) throw calendarHasAppointments();
  await commitChange(
    [
      orConflict(deleteItem(calendars.key(tenantId, calendarId), 'attribute_exists(pk)'), notFound('Calendar')),
      deleteItem(calendars.feedLookup(c.feedToken)),
      calendarSlot(tenantId, -1),
    ],
    change(tenantId, actor, calendarId, 'delete', { name: c.name }),
  );
}

/** A new secret in the same transaction that removes the old one's lookup: the old URL is dead when this answers. */
export async function rotateFeed(tenantId: string, calendarId: string, actor: Principal) {
  await requireAgents(tenantId);
  const c = await readCalendar(tenantId, calendarId, true);
  const feedToken = newFeedToken();
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(
        updateItem(
          calendars.key(tenantId, calendarId),
          { feedToken, updatedAt: now },
          { condition: 'feedToken = :old', values: { ':old': c.feedToken } },
        ),
        'The feed was rotated meanwhile; read the calendar again',
      ),
      deleteItem(calendars.feedLookup(c.feedToken)),
      putNew(feedLookup({ ...c, feedToken })),
    ],
    // The secret itself never reaches the audit trail.
    change(tenantId, actor, calendarId, 'rotate-feed', { feedUrl: 'rotated' }),
    { now },
  );
  return toCalendar({ ...c, feedToken, updatedAt: now });
}
