import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/data/keys.ts';
import { commitChange } from '#shared/data/commit.ts';
import { countIntegrationEvents, integrationEventPut } from '#shared/data/integration-events.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

const actor = { userId: crypto.randomUUID(), email: 'auditor@example.com' };
const tenantId = crypto.randomUUID();

/** Audit entries at fixed instants: three days, two entity types. */
const SEEDED = [
  { at: '2026-01-30T23:59:59.999Z', entityType: 'Supplier' },
  { at: '2026-01-31T00:00:00.000Z', entityType: 'Supplier' },
  { at: '2026-01-31T09:15:00.000Z', entityType: 'Role' },
  { at: '2026-01-31T23:59:59.999Z', entityType: 'Supplier' },
  { at: '2026-02-01T00:00:00.000Z', entityType: 'Role' },
  { at: '2026-02-01T12:00:00.000Z', entityType: 'Supplier' },
];

let admin: string;
let owner: string;
let member: string;

beforeAll(async () => {
  for (const e of SEEDED) {
    await commitChange(
      [],
      {
        entityType: e.entityType,
        entityId: crypto.randomUUID(),
        action: 'create',
        changes: { name: e.at, password: 'hunter2' },
        actor,
        tenantId,
      },
      { now: e.at },
    );
  }
  admin = await tokenFor({ role: 'SystemAdmin' });
  owner = await tokenFor({ tenantId });
  member = await tokenFor({ tenantId, role: 'TenantMember' });
});

const logs = (query: Record<string, string | number> = {}, token = admin) =>
  invoke('GET', '/api/admin/audit-logs', { token, query });
const times = (res: Awaited<ReturnType<typeof logs>>) =>
  res.json.result.items.map((e: { createdAt: string }) => e.createdAt);

describe('GET /api/admin/audit-logs', () => {
  it('lists every entry newest first with the spec fields and no secrets', async () => {
    const res = await logs();
    expect(res).toAnswer(200);
    expect(res.json.result).toMatchObject({ totalCount: 6, totalPages: 1, page: 1, pageSize: 20 });
    expect(times(res)).toEqual(SEEDED.map((e) => e.at).reverse());
    const entry = res.json.result.items[0];
    expect(entry).toMatchObject({
      entityType: 'Supplier',
      action: 'create',
      userId: actor.userId,
      userName: 'auditor@example.com',
      tenantId,
    });
    expect(JSON.parse(entry.changes)).toEqual({ name: '2026-02-01T12:00:00.000Z' });
  });

  it('pages stably', async () => {
    const pages = await Promise.all([1, 2, 3].map((page) => logs({ page, pageSize: 2 })));
    expect(pages[0]!.json.result).toMatchObject({ totalCount: 6, totalPages: 3 });
    expect(pages.flatMap(times)).toEqual(SEEDED.map((e) => e.at).reverse());
    expect((await logs({ page: 4, pageSize: 2 })).json.result).toMatchObject({ items: [], totalCount: 6 });
  });

  it('takes a date as the whole UTC day, inclusive at both ends', async () => {
    const day = await logs({ startDate: '2026-01-31', endDate: '2026-01-31' });
    expect(times(day)).toEqual(['2026-01-31T23:59:59.999Z', '2026-01-31T09:15:00.000Z', '2026-01-31T00:00:00.000Z']);
    expect(day.json.result.totalCount).toBe(3);
    expect((await logs({ startDate: '2026-02-01' })).json.result.totalCount).toBe(2);
    expect((await logs({ endDate: '2026-01-30' })).json.result.totalCount).toBe(1);
  });

  it('takes a datetime as that instant (any offset), inclusive', async () => {
    const res = await logs({ startDate: '2026-01-31T09:15:00.000Z', endDate: '2026-02-01T01:00:00+01:00' });
    expect(times(res)).toEqual(['2026-02-01T00:00:00.000Z', '2026-01-31T23:59:59.999Z', '2026-01-31T09:15:00.000Z']);
  });

  it('filters by entityType, alone and with dates, with exact counts and paging', async () => {
    const roles = await logs({ entityType: 'Role' });
    expect(times(roles)).toEqual(['2026-02-01T00:00:00.000Z', '2026-01-31T09:15:00.000Z']);
    expect(roles.json.result.totalCount).toBe(2);
    const suppliersDay = await logs({
      entityType: 'Supplier',
      startDate: '2026-01-31',
      endDate: '2026-02-01',
      pageSize: 1,
      page: 2,
    });
    expect(suppliersDay.json.result).toMatchObject({ totalCount: 3, totalPages: 3 });
    expect(times(suppliersDay)).toEqual(['2026-01-31T23:59:59.999Z']);
    expect((await logs({ entityType: 'Nothing' })).json.result).toMatchObject({
      items: [],
      totalCount: 0,
      totalPages: 0,
    });
  });

  it('rejects bad dates, an inverted range and bad paging with VALIDATION_ERROR', async () => {
    for (const query of <Record<string, string | number>[]>[
      { startDate: '2026-02-30' },
      { endDate: 'yesterday' },
      { startDate: '2026-01-31T25:00:00Z' },
      { pageSize: 0 },
      { page: -1 },
    ]) {
      const res = await logs(query);
      expect(res, JSON.stringify(query)).toAnswer(400, 'VALIDATION_ERROR');
    }
    const inverted = await logs({ startDate: '2026-02-01', endDate: '2026-01-31' });
    expect(inverted).toAnswer(400);
    expect(inverted.json.error.details).toEqual([
      { path: 'query.endDate', message: 'endDate must not be before startDate' },
    ]);
  });

  it('is for SystemAdmins only', async () => {
    expect(await logs({}, owner)).toAnswer(403);
    expect(await logs({}, member)).toAnswer(403);
    expect(await invoke('GET', '/api/admin/audit-logs')).toAnswer(401);
  });

  it('shows entries written by the API', async () => {
    await ddb().send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.platformItem('TENANT', tenantId), id: tenantId, status: 1 },
      }),
    );
    const made = await invoke('POST', '/api/groups', { token: owner, body: { name: 'Audited', tenantId } });
    expect(made).toAnswer(201);
    const res = await logs({ entityType: 'Group' });
    expect(res.json.result.items[0]).toMatchObject({
      entityId: made.json.result.id,
      action: 'create',
      tenantId,
      userName: 'tenantowner@example.com',
    });
    expect(JSON.parse(res.json.result.items[0].changes)).toEqual({ name: 'Audited', description: null });
    expect((await logs()).json.result.totalCount).toBe(SEEDED.length + 1);
  });
});

describe('GET /api/admin/integration-events', () => {
  it('lists events newest first with exact counts, for SystemAdmins only', async () => {
    for (let i = 0; i < 3; i++) {
      await commitChange([integrationEventPut('user.registered', { n: i }, `2026-03-0${i + 1}T00:00:00.000Z`)], null);
    }
    await countIntegrationEvents(3);
    await ddb().send(
      new PutCommand({
        TableName: config.tableName,
        Item: {
          ...keys.platformItem('INTEGRATION_EVENT', 'legacy'),
          ...keys.newestFirst(keys.platformCollection('INTEGRATION_EVENT'), '2026-02-01T00:00:00.000Z', 'legacy'),
          id: 'legacy',
          eventType: 'tenant.created',
          data: null,
          status: 'delivered',
          createdAt: '2026-02-01T00:00:00.000Z',
        },
      }),
    );
    await countIntegrationEvents(1);
    const res = await invoke('GET', '/api/admin/integration-events', { token: admin, query: { pageSize: 3 } });
    expect(res).toAnswer(200);
    expect(res.json.result).toMatchObject({ totalCount: 4, totalPages: 2, page: 1, pageSize: 3 });
    expect(res.json.result.items[0]).toEqual({
      id: expect.any(String),
      eventType: 'user.registered',
      data: '{"n":2}',
      status: 'recorded',
      createdAt: '2026-03-03T00:00:00.000Z',
    });
    const last = await invoke('GET', '/api/admin/integration-events', {
      token: admin,
      query: { pageSize: 3, page: 2 },
    });
    expect(last.json.result.items).toEqual([
      {
        id: 'legacy',
        eventType: 'tenant.created',
        data: null,
        status: 'delivered',
        createdAt: '2026-02-01T00:00:00.000Z',
      },
    ]);
    expect(await invoke('GET', '/api/admin/integration-events', { token: owner })).toAnswer(403);
    expect(await invoke('GET', '/api/admin/integration-events', { token: admin, query: { pageSize: 101 } })).toAnswer(
      400,
    );
  });

  it('records an event when a user joins a group', async () => {
    const group = (await invoke('GET', '/api/groups', { token: owner })).json.result.items[0];
    const userId = crypto.randomUUID();
    await ddb().send(
      new PutCommand({ TableName: config.tableName, Item: { ...keys.user(tenantId, userId), id: userId, tenantId } }),
    );
    expect(await invoke('POST', `/api/groups/${group.id}/users`, { token: owner, query: { userId } })).toAnswer(200);
    await invoke('POST', `/api/groups/${group.id}/users`, { token: owner, query: { userId } });
    const res = await invoke('GET', '/api/admin/integration-events', { token: admin, query: { pageSize: 100 } });
    const joined = res.json.result.items.filter((e: { eventType: string }) => e.eventType === 'group.member-added');
    expect(joined).toHaveLength(1);
    expect(JSON.parse(joined[0].data)).toEqual({ tenantId, groupId: group.id, userId });
    expect(res.json.result.totalCount).toBe(5);
  });
});
