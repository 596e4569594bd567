import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext, toApiGatewayEvent } from '#local/apigw-event.ts';
import { verifyPassword } from '#areas/identity/password.ts';
import { PERMISSIONS } from '#shared/auth/permissions.ts';
import { getFamily, newSession } from '#areas/identity/refresh-tokens.ts';
import { countOf, listNewestFirst } from '#shared/data/collection.ts';
import { get } from '#shared/data/read.ts';
import { keys } from '#shared/data/keys.ts';
import { commitChange } from '#shared/data/commit.ts';
import { redeemInvitation } from '#areas/identity/invitations.ts';
import { createUser } from '#areas/identity/user-accounts.ts';
import type { UserItem } from '#areas/identity/records.ts';
import { handler as usersHandler } from '#functions/users/index.ts';
import { routes } from '#local/routes.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { userRecord } from '#test/support/fixtures.ts';

const tag = () => crypto.randomUUID().slice(0, 8);
const NEW_PASSWORD = 'Fresh-Start-42';

let admin: string;

interface Member {
  id: string;
  email: string;
  token: string;
}
interface Tenant {
  id: string;
  slug: string;
  owner: Member;
}

/** A user joined through an invitation exactly as registration does it. */
async function join(t: { id: string; slug: string }, roles: string[], name = 'Pat Doe'): Promise<Member> {
  const email = `${name.split(' ')[0]!.toLowerCase()}-${tag()}@example.com`;
  const inv = await invoke('POST', `/api/tenants/${t.slug}/invitations`, { token: admin, body: { email, roles } });
  expect(inv).toAnswer(201);
  const redeemed = await redeemInvitation(inv.json.result.invitationCode, email);
  const id = crypto.randomUUID();
  const [firstName, lastName] = name.split(' ');
  await createUser(
    userRecord({
      id,
      email,
      firstName: firstName!,
      lastName: lastName!,
      roles: redeemed!.roles,
      tenantId: redeemed!.tenantId,
      isEmailVerified: true,
    }),
    null,
    redeemed!.writes,
  );
  const role = roles.includes('TenantOwner') ? 'TenantOwner' : 'TenantMember';
  return { id, email, token: await tokenFor({ tenantId: t.id, userId: id, role, roles, email }) };
}

async function newTenant(maxSeats = 50): Promise<Tenant> {
  const slug = `u-${tag()}`;
  const res = await invoke('POST', '/api/tenants', {
    token: admin,
    body: {
      slug,
      name: `Users ${slug}`,
      email: `t@${slug}.example.com`,
      planType: 2,
      maxAgents: 1,
      maxKnowledgeBases: 1,
      maxSeats,
    },
  });
  expect(res).toAnswer(201);
  const t = { id: res.json.result.id as string, slug };
  return { ...t, owner: await join(t, ['TenantOwner'], 'Olive Owner') };
}

const updateBody = (extra: Record<string, unknown> = {}) => ({
  firstName: 'Pat',
  lastName: 'Doe',
  phoneNumber: null,
  departmentId: null,
  roles: ['TenantMember'],
  isActive: true,
  ...extra,
});

const roleCounts = async (token: string, tenantId?: string) => {
  const res = await invoke('GET', '/api/roles', { token, query: tenantId ? { tenantId } : {} });
  return Object.fromEntries(
    res.json.result.items.map((r: { name: string; userCount: number }) => [r.name, r.userCount]),
  );
};
const tenantDetail = async (slug: string) =>
  (await invoke('GET', `/api/tenants/${slug}`, { token: admin })).json.result;
const storedUser = (tenantId: string, userId: string) =>
  get<UserItem>(keys.user(tenantId, userId), { consistent: true });

async function openSession(tenantId: string, userId: string) {
  const { familyId, items } = newSession({ id: userId, tenantId, sessionVersion: 0 }, false);
  await commitChange(items, null);
  return familyId;
}

let a: Tenant;
let b: Tenant;
let memberA: Member;

beforeAll(async () => {
  admin = await tokenFor({ role: 'SystemAdmin' });
  a = await newTenant();
  b = await newTenant();
  memberA = await join(a, ['TenantMember'], 'Mia Member');
});

describe('GET /api/users', () => {
  it('lists the tenant users newest first with exact counts and the list fields only', async () => {
    const t = await newTenant();
    const joined: Member[] = [];
    for (const name of ['Ann Alpha', 'Ben Beta', 'Cal Gamma', 'Dee Delta'])
      joined.push(await join(t, ['TenantMember'], name));
    const res = await invoke('GET', '/api/users', { token: t.owner.token, query: { pageSize: 2 } });
    expect(res).toAnswer(200);
    expect(res.json.result).toMatchObject({ totalCount: 5, totalPages: 3, page: 1, pageSize: 2 });
    expect(res.json.result.items.map((u: { id: string }) => u.id)).toEqual([joined[3]!.id, joined[2]!.id]);
    expect(Object.keys(res.json.result.items[0]).sort()).toEqual(
      [
        'avatarUrl',
        'createdAt',
        'departmentId',
        'email',
        'firstName',
        'id',
        'isActive',
        'isEmailVerified',
        'lastName',
        'phoneNumber',
        'roles',
        'tenantId',
      ].sort(),
    );
    const last = await invoke('GET', '/api/users', { token: t.owner.token, query: { pageSize: 2, page: 3 } });
    expect(last.json.result.items.map((u: { id: string }) => u.id)).toEqual([t.owner.id]);
  });

  it('filters by search (name and e-mail, any case), roleFilter and statusFilter', async () => {
    const t = await newTenant();
    const ann = await join(t, ['TenantMember'], 'Annika Search');
    const bob = await join(t, ['TenantMember'], 'Bob Other');
    await invoke('PUT', `/api/users/${bob.id}`, {
      token: t.owner.token,
      body: updateBody({ firstName: 'Bob', lastName: 'Other', isActive: false }),
    });
    const q = (query: Record<string, string>) => invoke('GET', '/api/users', { token: t.owner.token, query });
    const ids = (res: Awaited<ReturnType<typeof q>>) => res.json.result.items.map((u: { id: string }) => u.id);
    expect(ids(await q({ search: 'ANNIKA' }))).toEqual([ann.id]);
    expect(ids(await q({ search: 'annika search' }))).toEqual([ann.id]);
    expect(ids(await q({ search: bob.email.slice(0, 8).toUpperCase() }))).toEqual([bob.id]);
    expect((await q({ search: 'nobody-here' })).json.result).toMatchObject({ totalCount: 0, totalPages: 0, items: [] });
    expect(ids(await q({ roleFilter: 'tenantowner' }))).toEqual([t.owner.id]);
    expect(ids(await q({ roleFilter: 'TenantMember' }))).toEqual([bob.id, ann.id]);
    expect(ids(await q({ roleFilter: 'NoSuchRole' }))).toEqual([]);
    expect(ids(await q({ statusFilter: 'inactive' }))).toEqual([bob.id]);
    const active = await q({ statusFilter: 'Active', pageSize: '1' });
    expect(active.json.result).toMatchObject({ totalCount: 2, totalPages: 2 });
    expect(ids(await q({ statusFilter: 'active', roleFilter: 'TenantMember', search: 'annika' }))).toEqual([ann.id]);
    const bad = await q({ statusFilter: 'disabled' });
    expect(bad).toAnswer(400);
    expect(bad.json.error.details[0].path).toBe('query.statusFilter');
  });

  it('scopes to the tenant: SystemAdmin names it, others get 403 for another tenantId', async () => {
    const noTenant = await invoke('GET', '/api/users', { token: admin });
    expect(noTenant).toAnswer(400);
    expect(noTenant.json.error.details[0].path).toBe('query.tenantId');
    const adminList = await invoke('GET', '/api/users', { token: admin, query: { tenantId: a.id } });
    expect(adminList.json.result.items.map((u: { tenantId: string }) => u.tenantId)).toEqual(
      expect.arrayContaining([a.id]),
    );
    expect(adminList.json.result.totalCount).toBe(await countOf(keys.userCollection(a.id)));
    expect(await invoke('GET', '/api/users', { token: admin, query: { tenantId: crypto.randomUUID() } })).toAnswer(404);
    const foreign = await invoke('GET', '/api/users', { token: b.owner.token, query: { tenantId: a.id } });
    expect(foreign).toAnswer(403, 'FORBIDDEN');
    const own = await invoke('GET', '/api/users', { token: memberA.token });
    expect(own).toAnswer(200);
    expect(own.json.result.items.every((u: { tenantId: string }) => u.tenantId === a.id)).toBe(true);
    expect(await invoke('GET', '/api/users', { token: memberA.token, query: { tenantId: 'nope' } })).toAnswer(400);
  });
});

describe('GET /api/users/{userId}', () => {
  it('gives the detail with departmentName and groups', async () => {
    const t = await newTenant();
    const user = await join(t, ['TenantMember'], 'Gus Group');
    const dept = await invoke('POST', '/api/departments', {
      token: t.owner.token,
      body: { name: 'Finance', tenantId: t.id },
    });
    expect(dept).toAnswer(201);
    const group = await invoke('POST', '/api/groups', {
      token: t.owner.token,
      body: { name: 'Auditors', tenantId: t.id },
    });
    expect(group).toAnswer(201);
    expect(
      await invoke('POST', `/api/groups/${group.json.result.id}/users`, {
        token: t.owner.token,
        query: { userId: user.id },
      }),
    ).toAnswer(200);
    await invoke('PUT', `/api/users/${user.id}`, {
      token: t.owner.token,
      body: updateBody({ firstName: 'Gus', lastName: 'Group', departmentId: dept.json.result.id }),
    });

    const res = await invoke('GET', `/api/users/${user.id.toUpperCase()}`, { token: t.owner.token });
    expect(res).toAnswer(200);
    expect(res.json.result).toEqual({
      id: user.id,
      email: user.email,
      firstName: 'Gus',
      lastName: 'Group',
      phoneNumber: null,
      roles: ['TenantMember'],
      tenantId: t.id,
      isActive: true,
      isEmailVerified: true,
      avatarUrl: null,
      departmentId: dept.json.result.id,
      departmentName: 'Finance',
      groups: [{ id: group.json.result.id, name: 'Auditors' }],
      createdAt: expect.any(String),
    });
    const plain = await invoke('GET', `/api/users/${t.owner.id}`, { token: admin, query: { tenantId: t.id } });
    expect(plain.json.result).toMatchObject({ departmentName: null, groups: [], roles: ['TenantOwner'] });
  });

  it('answers 404 for another tenant’s user, 400 for a malformed id, 403 for another tenantId; a SystemAdmin needs only the id', async () => {
    const foreign = await invoke('GET', `/api/users/${a.owner.id}`, { token: b.owner.token });
    expect(foreign).toAnswer(404, 'NOT_FOUND');
    expect(
      await invoke('GET', `/api/users/${a.owner.id}`, { token: b.owner.token, query: { tenantId: a.id } }),
    ).toAnswer(403);
    expect(await invoke('GET', '/api/users/not-a-uuid', { token: a.owner.token })).toAnswer(400);
    expect(await invoke('GET', `/api/users/${crypto.randomUUID()}`, { token: a.owner.token })).toAnswer(404);
    const byAdmin = await invoke('GET', `/api/users/${a.owner.id}`, { token: admin });
    expect(byAdmin).toAnswer(200);
    expect(byAdmin.json.result).toMatchObject({ id: a.owner.id, tenantId: a.id });
  });
});

describe('PUT /api/users/{userId}', () => {
  it('updates fields, roles and department with exact counters, audit and events', async () => {
    const t = await newTenant();
    const user = await join(t, ['TenantMember'], 'Rita Roles');
    await invoke('POST', '/api/roles', { token: t.owner.token, body: { name: 'Editor', tenantId: t.id } });
    const d1 = (
      await invoke('POST', '/api/departments', { token: t.owner.token, body: { name: 'Ops', tenantId: t.id } })
    ).json.result;
    const d2 = (
      await invoke('POST', '/api/departments', { token: t.owner.token, body: { name: 'Sales', tenantId: t.id } })
    ).json.result;

    const res = await invoke('PUT', `/api/users/${user.id}`, {
      token: t.owner.token,
      body: {
        firstName: ' Rita ',
        lastName: 'Renamed',
        phoneNumber: '+44 20 7946 0000',
        departmentId: d1.id,
        roles: ['editor', 'TenantMember'],
        isActive: true,
        email: 'hijack@example.com',
        tenantId: b.id,
      },
    });
    expect(res).toAnswer(200);
    expect(res.json.result).toMatchObject({
      id: user.id,
      email: user.email,
      tenantId: t.id,
      firstName: 'Rita',
      lastName: 'Renamed',
      phoneNumber: '+44 20 7946 0000',
      roles: ['Editor', 'TenantMember'],
      departmentId: d1.id,
      departmentName: 'Ops',
      groups: [],
    });
    expect(await roleCounts(t.owner.token)).toMatchObject({ Editor: 1, TenantMember: 1, TenantOwner: 1 });
    const depts = async () =>
      Object.fromEntries(
        (await invoke('GET', '/api/departments', { token: t.owner.token })).json.result.items.map(
          (d: { name: string; userCount: number }) => [d.name, d.userCount],
        ),
      );
    expect(await depts()).toEqual({ Ops: 1, Sales: 0 });

    await invoke('PUT', `/api/users/${user.id}`, {
      token: t.owner.token,
      body: updateBody({ firstName: 'Rita', lastName: 'Renamed', departmentId: d2.id, roles: ['Editor'] }),
    });
    expect(await roleCounts(t.owner.token)).toMatchObject({ Editor: 1, TenantMember: 0 });
    expect(await depts()).toEqual({ Ops: 0, Sales: 1 });
    const search = await invoke('GET', '/api/users', { token: t.owner.token, query: { search: 'renamed' } });
    expect(search.json.result.items.map((u: { id: string }) => u.id)).toEqual([user.id]);

    const audit = await listNewestFirst<{ action: string; changes: string }>(keys.platformCollection('AUDIT'), {
      page: 1,
      pageSize: 100,
      where: { entityId: user.id, action: 'update' },
    });
    expect(audit.items.map((x) => JSON.parse(x.changes))).toEqual([
      { departmentId: d2.id, roles: ['Editor'], phoneNumber: null },
      { lastName: 'Renamed', phoneNumber: '+44 20 7946 0000', departmentId: d1.id, roles: ['Editor', 'TenantMember'] },
    ]);
    const events = await listNewestFirst<{ data: string; status: string }>(
      keys.platformCollection('INTEGRATION_EVENT'),
      { page: 1, pageSize: 500, where: { eventType: 'membership.changed' } },
    );
    expect(events.items.filter((e) => JSON.parse(e.data).userId === user.id)).toHaveLength(2);

    const noop = await invoke('PUT', `/api/users/${user.id}`, {
      token: t.owner.token,
      body: updateBody({ firstName: 'Rita', lastName: 'Renamed', departmentId: d2.id, roles: ['Editor'] }),
    });
    expect(noop).toAnswer(200);
    expect(
      (
        await listNewestFirst(keys.platformCollection('AUDIT'), {
          page: 1,
          pageSize: 100,
          where: { entityId: user.id, action: 'update' },
        })
      ).totalCount,
    ).toBe(2);
  });

  it('refuses unknown roles, foreign departments and bad bodies with 400, writing nothing', async () => {
    const user = await join(a, ['TenantMember'], 'Val Valid');
    const deptB = (
      await invoke('POST', '/api/departments', { token: b.owner.token, body: { name: 'B-only', tenantId: b.id } })
    ).json.result;
    const before = await storedUser(a.id, user.id);
    const cases: [Record<string, unknown>, string][] = [
      [updateBody({ roles: ['TenantMember', 'Ghost', 'Phantom'] }), 'Ghost, Phantom'],
      [updateBody({ departmentId: deptB.id }), 'body.departmentId'],
      [updateBody({ departmentId: crypto.randomUUID() }), 'body.departmentId'],
      [updateBody({ departmentId: 'nope' }), 'body.departmentId'],
      [updateBody({ roles: [] }), 'body.roles'],
      [updateBody({ isActive: 'yes' }), 'body.isActive'],
      [updateBody({ firstName: undefined }), 'body.firstName'],
      [{ newPassword: NEW_PASSWORD }, 'body.firstName'],
    ];
    for (const [body, mention] of cases) {
      const res = await invoke('PUT', `/api/users/${user.id}`, { token: a.owner.token, body });
      expect(res, JSON.stringify(body)).toAnswer(400, 'VALIDATION_ERROR');
      expect(JSON.stringify(res.json.error.details)).toContain(mention);
    }
    expect(
      (await invoke('PUT', `/api/users/${user.id}`, { token: a.owner.token, rawBody: '[1]' })).json.error.code,
    ).toBe('INVALID_JSON');
    expect(await storedUser(a.id, user.id)).toEqual(before);
  });

  it('lets nobody but a SystemAdmin grant SystemAdmin, and never to a tenant user', async () => {
    const user = await join(a, ['TenantMember'], 'Sam Sys');
    const byOwner = await invoke('PUT', `/api/users/${user.id}`, {
      token: a.owner.token,
      body: updateBody({ roles: ['SystemAdmin'] }),
    });
    expect(byOwner).toAnswer(403);
    const byAdmin = await invoke('PUT', `/api/users/${user.id}`, {
      token: admin,
      query: { tenantId: a.id },
      body: updateBody({ roles: ['systemadmin'] }),
    });
    expect(byAdmin).toAnswer(400);
    expect((await storedUser(a.id, user.id))!.roles).toEqual(['TenantMember']);
  });

  it('refuses members (403), other tenants (404 by id, 403 by tenantId), and custom roles touching owners (403)', async () => {
    const user = await join(a, ['TenantMember'], 'Cross Tenant');
    const before = await storedUser(a.id, user.id);
    expect(await invoke('PUT', `/api/users/${user.id}`, { token: memberA.token, body: updateBody() })).toAnswer(403);
    expect(
      await invoke('PUT', `/api/users/${user.id}`, {
        token: b.owner.token,
        body: updateBody({ firstName: 'Hacked' }),
      }),
    ).toAnswer(404);
    expect(
      await invoke('PUT', `/api/users/${user.id}`, {
        token: b.owner.token,
        query: { tenantId: a.id },
        body: updateBody(),
      }),
    ).toAnswer(403);
    // The ceiling: a manager manages a TenantMember only when it holds every permission of that role (all reads).
    const narrow = await tokenFor({ tenantId: a.id, roles: ['Manager'], permissions: ['users:read', 'users:write'] });
    expect(
      await invoke('PUT', `/api/users/${user.id}`, { token: narrow, body: updateBody({ firstName: 'Managed' }) }),
    ).toAnswer(403);
    const manager = await tokenFor({
      tenantId: a.id,
      roles: ['Manager'],
      permissions: [...PERMISSIONS.filter((p) => p.endsWith(':read')), 'users:write'],
    });
    expect(
      await invoke('PUT', `/api/users/${a.owner.id}`, {
        token: manager,
        body: updateBody({ roles: ['TenantOwner'], isActive: false }),
      }),
    ).toAnswer(403);
    expect(
      await invoke('PUT', `/api/users/${user.id}`, { token: manager, body: updateBody({ roles: ['TenantOwner'] }) }),
    ).toAnswer(403);
    const fine = await invoke('PUT', `/api/users/${user.id}`, {
      token: manager,
      body: updateBody({ firstName: 'Managed' }),
    });
    expect(fine).toAnswer(200);
    const after = await storedUser(a.id, user.id);
    expect(after).toMatchObject({
      firstName: 'Managed',
      roles: before!.roles,
      isActive: true,
      email: before!.email,
      tenantId: a.id,
    });
    expect((await storedUser(a.id, a.owner.id))!.isActive).toBe(true);
  });

  it('keeps a user from deactivating itself and the tenant from losing its last active owner (409)', async () => {
    const t = await newTenant();
    const self = await invoke('PUT', `/api/users/${t.owner.id}`, {
      token: t.owner.token,
      body: updateBody({ roles: ['TenantOwner'], isActive: false }),
    });
    expect(self).toAnswer(409);
    const demote = await invoke('PUT', `/api/users/${t.owner.id}`, {
      token: t.owner.token,
      body: updateBody({ roles: ['TenantMember'] }),
    });
    expect(demote).toAnswer(409, 'CONFLICT');
    const byAdmin = await invoke('PUT', `/api/users/${t.owner.id}`, {
      token: admin,
      query: { tenantId: t.id },
      body: updateBody({ roles: ['TenantOwner'], isActive: false }),
    });
    expect(byAdmin).toAnswer(409);

    const second = await join(t, ['TenantOwner'], 'Second Owner');
    const ok = await invoke('PUT', `/api/users/${t.owner.id}`, {
      token: t.owner.token,
      body: updateBody({ firstName: 'Olive', lastName: 'Owner', roles: ['TenantMember'] }),
    });
    expect(ok).toAnswer(200);
    expect(await roleCounts(second.token)).toMatchObject({ TenantOwner: 1, TenantMember: 1 });
    const last = await invoke('PUT', `/api/users/${second.id}`, {
      token: admin,
      query: { tenantId: t.id },
      body: updateBody({ roles: ['TenantOwner'], isActive: false }),
    });
    expect(last).toAnswer(409);
  });

  it('revokes the refresh tokens of a deactivated user and lets it be reactivated', async () => {
    const user = await join(a, ['TenantMember'], 'Dee Active');
    const familyId = await openSession(a.id, user.id);
    const res = await invoke('PUT', `/api/users/${user.id}`, {
      token: a.owner.token,
      body: updateBody({ firstName: 'Dee', lastName: 'Active', isActive: false }),
    });
    expect(res).toAnswer(200);
    expect(res.json.result.isActive).toBe(false);
    expect((await getFamily(familyId))!.revokedAt).toBeDefined();
    expect((await storedUser(a.id, user.id))!.sessionVersion).toBe(1);
    const events = await listNewestFirst<{ data: string }>(keys.platformCollection('INTEGRATION_EVENT'), {
      page: 1,
      pageSize: 500,
      where: { eventType: 'user.deactivated' },
    });
    expect(events.items.some((e) => JSON.parse(e.data).userId === user.id)).toBe(true);
    const back = await invoke('PUT', `/api/users/${user.id}`, {
      token: a.owner.token,
      body: updateBody({ firstName: 'Dee', lastName: 'Active', isActive: true }),
    });
    expect(back.json.result.isActive).toBe(true);
  });
});

describe('DELETE /api/users/{userId}', () => {
  it('deletes the user, frees its seat, e-mail and memberships, revokes its tokens (204)', async () => {
    const t = await newTenant();
    const user = await join(t, ['TenantMember'], 'Del Eted');
    const group = (
      await invoke('POST', '/api/groups', { token: t.owner.token, body: { name: 'Team', tenantId: t.id } })
    ).json.result;
    await invoke('POST', `/api/groups/${group.id}/users`, { token: t.owner.token, query: { userId: user.id } });
    const dept = (
      await invoke('POST', '/api/departments', { token: t.owner.token, body: { name: 'Dept', tenantId: t.id } })
    ).json.result;
    await invoke('PUT', `/api/users/${user.id}`, { token: t.owner.token, body: updateBody({ departmentId: dept.id }) });
    const familyId = await openSession(t.id, user.id);
    expect((await tenantDetail(t.slug)).seatCount).toBe(2);

    const res = await invoke('DELETE', `/api/users/${user.id}`, { token: t.owner.token });
    expect(res).toAnswer(204);
    expect(res.text).toBe('');
    expect(await invoke('GET', `/api/users/${user.id}`, { token: t.owner.token })).toAnswer(404);
    expect(await invoke('DELETE', `/api/users/${user.id}`, { token: t.owner.token })).toAnswer(404);
    expect((await tenantDetail(t.slug)).seatCount).toBe(1);
    expect(await countOf(keys.userCollection(t.id))).toBe(1);
    expect((await invoke('GET', '/api/users', { token: t.owner.token })).json.result.totalCount).toBe(1);
    expect(await get(keys.unique('EMAIL', user.email))).toBeUndefined();
    expect(await roleCounts(t.owner.token)).toMatchObject({ TenantMember: 0, TenantOwner: 1 });
    const groups = (await invoke('GET', '/api/groups', { token: t.owner.token })).json.result.items;
    expect(groups[0]).toMatchObject({ name: 'Team', memberCount: 0 });
    const depts = (await invoke('GET', '/api/departments', { token: t.owner.token })).json.result.items;
    expect(depts[0]).toMatchObject({ name: 'Dept', userCount: 0 });
    expect((await getFamily(familyId))!.revokedAt).toBeDefined();
    const audit = await listNewestFirst<{ action: string; changes: string }>(keys.platformCollection('AUDIT'), {
      page: 1,
      pageSize: 20,
      where: { entityId: user.id, action: 'delete' },
    });
    expect(JSON.parse(audit.items[0]!.changes)).toEqual({ email: user.email, roles: ['TenantMember'] });

    // The freed e-mail and seat can be used again.
    const again = await join(t, ['TenantMember'], 'Del Again');
    expect(again.id).toBeDefined();
  });

  it('refuses deleting oneself and the last active owner (409), members (403), other tenants (404)', async () => {
    const t = await newTenant();
    const member = await join(t, ['TenantMember'], 'Mem Ber');
    expect(await invoke('DELETE', `/api/users/${t.owner.id}`, { token: t.owner.token })).toAnswer(409);
    const last = await invoke('DELETE', `/api/users/${t.owner.id}`, { token: admin, query: { tenantId: t.id } });
    expect(last).toAnswer(409, 'CONFLICT');
    expect(await invoke('DELETE', `/api/users/${member.id}`, { token: member.token })).toAnswer(403);
    expect(await invoke('DELETE', `/api/users/${member.id}`, { token: b.owner.token })).toAnswer(404);
    expect(
      await invoke('DELETE', `/api/users/${member.id}`, { token: b.owner.token, query: { tenantId: t.id } }),
    ).toAnswer(403);
    expect(await countOf(keys.userCollection(t.id))).toBe(2);
    expect((await tenantDetail(t.slug)).seatCount).toBe(2);
  });
});

/** What API Gateway sends for `PUT /api/users/{id}:password-reset`: the `{userId}` route, suffix in the parameter. */
async function viaApiGateway(userId: string, token: string, body: unknown) {
  const route = routes.find((r) => r.id === 'users.update')!;
  const event = toApiGatewayEvent(
    {
      method: 'PUT',
      path: `/api/users/${userId}:password-reset`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    },
    { route, params: { userId: `${userId}:password-reset` } },
  );
  const res = (await usersHandler(event, lambdaContext('users'))) as APIGatewayProxyStructuredResultV2;
  return { status: res.statusCode, json: JSON.parse(res.body ?? 'null') };
}

describe('admin password reset', () => {
  it('sets the password, bumps the session version and revokes refresh tokens (PUT .../password-reset)', async () => {
    const user = await join(a, ['TenantMember'], 'Reese Set');
    const familyId = await openSession(a.id, user.id);
    const res = await invoke('PUT', `/api/users/${user.id}/password-reset`, {
      token: a.owner.token,
      body: { newPassword: NEW_PASSWORD },
    });
    expect(res).toAnswer(200);
    expect(res.json).toEqual({ success: true, result: null });
    const stored = await storedUser(a.id, user.id);
    expect(await verifyPassword(NEW_PASSWORD, stored!.passwordHash!)).toBe(true);
    expect(stored!.sessionVersion).toBe(1);
    expect((await getFamily(familyId))!.revokedAt).toBeDefined();
    const audit = await listNewestFirst<{ changes: string }>(keys.platformCollection('AUDIT'), {
      page: 1,
      pageSize: 10,
      where: { entityId: user.id, action: 'password-reset' },
    });
    expect(audit.items[0]!.changes).not.toMatch(/Fresh|scrypt|password/i);
  });

  it('is also served as PUT /api/users/{userId}:password-reset, which API Gateway routes to {userId}', async () => {
    const user = await join(a, ['TenantMember'], 'Colon Form');
    const res = await viaApiGateway(user.id, a.owner.token, { newPassword: NEW_PASSWORD });
    expect(res).toEqual({ status: 200, json: { success: true, result: null } });
    expect((await storedUser(a.id, user.id))!.sessionVersion).toBe(1);
    const weak = await viaApiGateway(user.id, a.owner.token, { newPassword: 'short' });
    expect(weak.status).toBe(400);
    const wrongBody = await viaApiGateway(user.id, a.owner.token, updateBody());
    expect(wrongBody.status).toBe(400);
    expect(wrongBody.json.error.details).toEqual([{ path: 'body.newPassword', message: 'Required' }]);
    expect((await viaApiGateway(user.id, b.owner.token, { newPassword: NEW_PASSWORD })).status).toBe(404);
    expect((await viaApiGateway(user.id, memberA.token, { newPassword: NEW_PASSWORD })).status).toBe(403);
  });

  it('serves the colon alias through the local route matcher', async () => {
    const user = await join(a, ['TenantMember'], 'Alias Form');
    const res = await invoke('PUT', `/api/users/${user.id}:password-reset`, {
      token: a.owner.token,
      body: { newPassword: NEW_PASSWORD },
    });
    expect(res).toAnswer(200);
  });

  it('enforces the password policy and the scoping rules', async () => {
    const user = await join(a, ['TenantMember'], 'Poli Cy');
    for (const newPassword of ['short1A', 'alllowercase1', 'ALLUPPERCASE1', 'NoDigitsHere', 'A1a'.repeat(90)]) {
      const res = await invoke('PUT', `/api/users/${user.id}/password-reset`, {
        token: a.owner.token,
        body: { newPassword },
      });
      expect(res, newPassword).toAnswer(400);
      expect(res.json.error.details[0].path).toBe('body.newPassword');
    }
    const body = { newPassword: NEW_PASSWORD };
    expect(await invoke('PUT', `/api/users/${user.id}/password-reset`, { token: memberA.token, body })).toAnswer(403);
    expect(await invoke('PUT', `/api/users/${user.id}/password-reset`, { token: b.owner.token, body })).toAnswer(404);
    expect(
      await invoke('PUT', `/api/users/${user.id}/password-reset`, {
        token: b.owner.token,
        query: { tenantId: a.id },
        body,
      }),
    ).toAnswer(403);
    const manager = await tokenFor({ tenantId: a.id, roles: ['Manager'], permissions: ['users:write'] });
    expect(await invoke('PUT', `/api/users/${a.owner.id}/password-reset`, { token: manager, body })).toAnswer(403);
    expect((await storedUser(a.id, user.id))!.sessionVersion).toBeUndefined();
  });
});

describe('concurrency', () => {
  it('lets exactly one of two owners demoting each other at once succeed', async () => {
    for (let round = 0; round < 3; round++) {
      const t = await newTenant();
      const second = await join(t, ['TenantOwner'], 'Twin Owner');
      const results = await Promise.all([
        invoke('PUT', `/api/users/${second.id}`, {
          token: t.owner.token,
          body: updateBody({ roles: ['TenantMember'] }),
        }),
        invoke('PUT', `/api/users/${t.owner.id}`, {
          token: second.token,
          body: updateBody({ roles: ['TenantMember'] }),
        }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const owners = await invoke('GET', '/api/users', {
        token: admin,
        query: { tenantId: t.id, roleFilter: 'TenantOwner' },
      });
      expect(owners.json.result.totalCount).toBe(1);
      expect((await roleCounts(admin, t.id)).TenantOwner).toBe(1);
    }
  });

  it('keeps the last owner when deactivation and deletion of two owners race', async () => {
    const t = await newTenant();
    const second = await join(t, ['TenantOwner'], 'Race Owner');
    const results = await Promise.all([
      invoke('DELETE', `/api/users/${second.id}`, { token: admin, query: { tenantId: t.id } }),
      invoke('PUT', `/api/users/${t.owner.id}`, {
        token: admin,
        query: { tenantId: t.id },
        body: updateBody({ roles: ['TenantOwner'], isActive: false }),
      }),
    ]);
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 409)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200 || s === 204)).toHaveLength(1);
    const active = await invoke('GET', '/api/users', {
      token: admin,
      query: { tenantId: t.id, roleFilter: 'TenantOwner', statusFilter: 'active' },
    });
    expect(active.json.result.totalCount).toBe(1);
  });

  it('keeps role, department and seat counters exact under parallel updates and deletes', async () => {
    const t = await newTenant();
    await invoke('POST', '/api/roles', { token: t.owner.token, body: { name: 'Analyst', tenantId: t.id } });
    const dept = (
      await invoke('POST', '/api/departments', { token: t.owner.token, body: { name: 'Lab', tenantId: t.id } })
    ).json.result;
    const users: Member[] = [];
    for (let i = 0; i < 8; i++) users.push(await join(t, ['TenantMember'], `Para ${i}`));

    // Every user is updated twice at once (same target): each must count once.
    const updates = await Promise.all(
      users.flatMap((u) =>
        [0, 1].map(() =>
          invoke('PUT', `/api/users/${u.id}`, {
            token: t.owner.token,
            body: updateBody({ roles: ['Analyst'], departmentId: dept.id }),
          }),
        ),
      ),
    );
    expect(updates.every((r) => r.status === 200)).toBe(true);
    expect(await roleCounts(t.owner.token)).toMatchObject({ Analyst: 8, TenantMember: 0, TenantOwner: 1 });
    const labCount = async () =>
      (await invoke('GET', '/api/departments', { token: t.owner.token })).json.result.items[0].userCount;
    expect(await labCount()).toBe(8);

    const deletes = await Promise.all(
      users
        .slice(0, 5)
        .flatMap((u) => [0, 1].map(() => invoke('DELETE', `/api/users/${u.id}`, { token: t.owner.token }))),
    );
    expect(deletes.filter((r) => r.status === 204)).toHaveLength(5);
    expect(deletes.filter((r) => r.status === 404)).toHaveLength(5);
    expect(await roleCounts(t.owner.token)).toMatchObject({ Analyst: 3, TenantOwner: 1 });
    expect(await labCount()).toBe(3);
    expect((await tenantDetail(t.slug)).seatCount).toBe(4);
    expect((await invoke('GET', '/api/users', { token: t.owner.token })).json.result.totalCount).toBe(4);
  });
});
