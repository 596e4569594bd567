import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/data/keys.ts';
import { commitChange } from '#shared/data/commit.ts';
import { groupsOfUser, membershipChangeItems } from '#areas/identity/org-counters.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { newTenant, twoTenants } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/** A user item as the users area stores it (only the fields this area reads). */
async function newUser(tenantId: string) {
  const id = crypto.randomUUID();
  await ddb().send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...keys.user(tenantId, id), id, tenantId, email: `${id}@example.com`, roles: ['TenantMember'] },
    }),
  );
  return id;
}

let tenantA: string;
let tenantB: string;
let ownerA: string;
let memberA: string;
let ownerB: string;
let admin: string;

beforeAll(async () => {
  ({ tenantA, tenantB, ownerA, memberA, ownerB, admin } = await twoTenants());
});

const create = (token: string, body: Record<string, unknown>) => invoke('POST', '/api/groups', { token, body });
const list = (token: string, query: Record<string, string | number> = {}) =>
  invoke('GET', '/api/groups', { token, query });
const add = (token: string, groupId: string, userId: string, query: Record<string, string> = {}) =>
  invoke('POST', `/api/groups/${groupId}/users`, { token, query: { userId, ...query } });

describe('groups', () => {
  it('creates a group (201) and lists it with memberCount', async () => {
    const res = await create(ownerA, {
      name: 'Crisis Team',
      description: 'First responders',
      tenantId: tenantA,
      memberCount: 99,
    });
    expect(res).toAnswer(201);
    expect(res.json.result).toMatchObject({
      name: 'Crisis Team',
      description: 'First responders',
      tenantId: tenantA,
      memberCount: 0,
    });
    expect(Object.keys(res.json.result).sort()).toEqual([
      'createdAt',
      'description',
      'id',
      'memberCount',
      'name',
      'tenantId',
    ]);
    const listed = await list(memberA);
    expect(listed).toAnswer(200);
    expect(listed.json.result.items[0]).toEqual(res.json.result);
  });

  it('enforces a unique name per tenant, case-insensitively and under concurrency', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => create(ownerA, { name: 'Unique Group', tenantId: tenantA })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.json.error.code === 'CONFLICT')).toHaveLength(4);
    expect(await create(ownerA, { name: 'UNIQUE group', tenantId: tenantA })).toAnswer(409);
    expect(await create(ownerB, { name: 'Unique Group', tenantId: tenantB })).toAnswer(201);
    expect((await list(ownerA, { search: 'unique' })).json.result.totalCount).toBe(1);
  });

  it('searches name and description case-insensitively with exact counts', async () => {
    const tenant = await newTenant();
    const owner = await tokenFor({ tenantId: tenant });
    await create(owner, { name: 'Alpha', description: 'Finance people', tenantId: tenant });
    await create(owner, { name: 'Beta', description: null, tenantId: tenant });
    await create(owner, { name: 'Gamma finance', tenantId: tenant });
    const finance = await list(owner, { search: 'FINANCE' });
    expect(finance.json.result).toMatchObject({ totalCount: 2, totalPages: 1 });
    expect(finance.json.result.items.map((g: { name: string }) => g.name)).toEqual(['Gamma finance', 'Alpha']);
    expect((await list(owner)).json.result).toMatchObject({ totalCount: 3 });
    expect(
      (await list(owner, { pageSize: 2, page: 2 })).json.result.items.map((g: { name: string }) => g.name),
    ).toEqual(['Alpha']);
  });

  it('adds a user of the same tenant; adding again is idempotent', async () => {
    const group = (await create(ownerA, { name: 'Adders', tenantId: tenantA })).json.result;
    const user = await newUser(tenantA);
    const first = await add(ownerA, group.id, user);
    expect(first).toAnswer(200);
    expect(first.json.result).toMatchObject({ id: group.id, name: 'Adders', memberCount: 1 });
    const again = await add(ownerA, group.id, user.toUpperCase());
    expect(again).toAnswer(200);
    expect(again.json.result.memberCount).toBe(1);
    expect(await groupsOfUser(tenantA, user)).toEqual([{ id: group.id, name: 'Adders' }]);
    const audit = await invoke('GET', '/api/admin/audit-logs', {
      token: admin,
      query: { entityType: 'Group', pageSize: 100 },
    });
    expect(
      audit.json.result.items.filter(
        (e: { entityId: string; action: string }) => e.entityId === group.id && e.action === 'add-member',
      ),
    ).toHaveLength(1);
  });

  it('refuses a user of another tenant, unknown users and foreign groups (404), writing nothing', async () => {
    const group = (await create(ownerA, { name: 'Guarded', tenantId: tenantA })).json.result;
    const foreignUser = await newUser(tenantB);
    const res = await add(ownerA, group.id, foreignUser);
    expect(res).toAnswer(404);
    expect(res.json.error).toMatchObject({ code: 'NOT_FOUND', message: 'User not found' });
    expect(await add(ownerA, group.id, crypto.randomUUID())).toAnswer(404);
    const userB = await newUser(tenantB);
    const foreignGroup = await add(ownerB, group.id, userB);
    expect(foreignGroup).toAnswer(404);
    expect(foreignGroup.json.error.message).toBe('Group not found');
    expect(await add(ownerB, group.id, userB, { tenantId: tenantA })).toAnswer(403);
    expect(await add(memberA, group.id, await newUser(tenantA))).toAnswer(403);
    expect(await add(ownerA, group.id, 'not-a-uuid')).toAnswer(400);
    expect(await invoke('POST', `/api/groups/${group.id}/users`, { token: ownerA })).toAnswer(400);
    const after = (await list(ownerA, { search: 'guarded' })).json.result.items[0];
    expect(after.memberCount).toBe(0);
    expect(await groupsOfUser(tenantB, foreignUser)).toEqual([]);
    expect(await groupsOfUser(tenantA, foreignUser)).toEqual([]);
  });

  it('keeps memberCount exact under parallel adds of distinct users and of the same user', async () => {
    const group = (await create(ownerA, { name: 'Parallel', tenantId: tenantA })).json.result;
    const users = await Promise.all(Array.from({ length: 10 }, () => newUser(tenantA)));
    const distinct = await Promise.all(users.map((u) => add(ownerA, group.id, u)));
    expect(distinct.map((r) => r.status)).toEqual(Array(10).fill(200));
    const same = await newUser(tenantA);
    const repeated = await Promise.all(Array.from({ length: 10 }, () => add(ownerA, group.id, same)));
    expect(repeated.map((r) => r.status)).toEqual(Array(10).fill(200));
    const listed = (await list(ownerA, { search: 'parallel' })).json.result.items[0];
    expect(listed.memberCount).toBe(11);
  });

  it('drops a deleted user from its groups and keeps memberCount and role userCount exact', async () => {
    const g1 = (await create(ownerA, { name: 'Leavers 1', tenantId: tenantA })).json.result;
    const g2 = (await create(ownerA, { name: 'Leavers 2', tenantId: tenantA })).json.result;
    const user = await newUser(tenantA);
    const stay = await newUser(tenantA);
    await commitChange(
      await membershipChangeItems(tenantA, user, null, { roles: ['TenantMember'], departmentId: null }),
      null,
    );
    for (const g of [g1, g2]) await add(ownerA, g.id, user);
    await add(ownerA, g1.id, stay);
    expect((await groupsOfUser(tenantA, user)).map((g) => g.name)).toEqual(['Leavers 1', 'Leavers 2']);
    const roleCount = async () =>
      (await invoke('GET', '/api/roles', { token: ownerA, query: { pageSize: 100 } })).json.result.items.find(
        (r: { name: string }) => r.name === 'TenantMember',
      ).userCount;
    const before = await roleCount();
    await commitChange(
      await membershipChangeItems(tenantA, user, { roles: ['TenantMember'], departmentId: null }, null),
      null,
    );
    expect(await roleCount()).toBe(before - 1);
    expect(await groupsOfUser(tenantA, user)).toEqual([]);
    const memberCounts = Object.fromEntries(
      (await list(ownerA, { search: 'leavers' })).json.result.items.map((g: { name: string; memberCount: number }) => [
        g.name,
        g.memberCount,
      ]),
    );
    expect(memberCounts).toEqual({ 'Leavers 1': 1, 'Leavers 2': 0 });
  });

  it('keeps tenants apart and members read-only; a SystemAdmin names the tenant', async () => {
    expect(await list(ownerB, { tenantId: tenantA })).toAnswer(403);
    expect(await create(ownerB, { name: 'Planted', tenantId: tenantA })).toAnswer(403);
    expect(await create(memberA, { name: 'Member made', tenantId: tenantA })).toAnswer(403);
    const ownB = await list(ownerB, { pageSize: 100 });
    expect(ownB.json.result.items.every((g: { tenantId: string }) => g.tenantId === tenantB)).toBe(true);
    const made = await create(admin, { name: 'By admin', tenantId: tenantA });
    expect(made).toAnswer(201);
    const user = await newUser(tenantA);
    expect((await add(admin, made.json.result.id, user, { tenantId: tenantA })).json.result.memberCount).toBe(1);
    // The group's id alone is enough for a SystemAdmin (adding again is idempotent).
    const byIdAlone = await add(admin, made.json.result.id, user);
    expect(byIdAlone).toAnswer(200);
    expect(byIdAlone.json.result.memberCount).toBe(1);
  });
});
