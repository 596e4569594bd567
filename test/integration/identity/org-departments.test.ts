import { beforeAll, describe, expect, it } from 'vitest';
import { commitChange } from '#shared/data/commit.ts';
import { MAX_DEPARTMENT_DEPTH, checkParentChain, getDepartment } from '#areas/identity/department-tree.ts';
import { departmentName, membershipChangeItems } from '#areas/identity/org-counters.ts';
import { newTenant, twoTenants } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

let tenantA: string;
let tenantB: string;
let ownerA: string;
let memberA: string;
let ownerB: string;
let admin: string;

beforeAll(async () => {
  ({ tenantA, tenantB, ownerA, memberA, ownerB, admin } = await twoTenants());
});

const create = (token: string, body: Record<string, unknown>) => invoke('POST', '/api/departments', { token, body });
const list = (token: string, query: Record<string, string | number> = {}) =>
  invoke('GET', '/api/departments', { token, query });
const find = async (token: string, id: string) =>
  (await list(token, { pageSize: 100 })).json.result.items.find((d: { id: string }) => d.id === id);

describe('departments', () => {
  it('creates root and child departments with parentName, childCount and userCount', async () => {
    const root = await create(ownerA, { name: 'Operations', tenantId: tenantA, childCount: 50, userCount: 7 });
    expect(root).toAnswer(201);
    expect(root.json.result).toMatchObject({
      name: 'Operations',
      tenantId: tenantA,
      parentId: null,
      parentName: null,
      childCount: 0,
      userCount: 0,
    });
    const child = await create(ownerA, { name: 'Logistics', tenantId: tenantA, parentId: root.json.result.id });
    expect(child).toAnswer(201);
    expect(child.json.result).toMatchObject({ parentId: root.json.result.id, parentName: 'Operations', childCount: 0 });
    const grandchild = await create(ownerA, {
      name: 'Fleet',
      tenantId: tenantA,
      parentId: child.json.result.id.toUpperCase(),
    });
    expect(grandchild.json.result.parentId).toBe(child.json.result.id);

    expect(await find(memberA, root.json.result.id)).toMatchObject({ childCount: 1, parentName: null });
    expect(await find(memberA, child.json.result.id)).toMatchObject({ childCount: 1, parentName: 'Operations' });
    const all = await list(memberA);
    expect(all.json.result.items.slice(0, 3).map((d: { name: string }) => d.name)).toEqual([
      'Fleet',
      'Logistics',
      'Operations',
    ]);
  });

  it('filters by parentId (direct children, newest first, counted by childCount) and pages', async () => {
    const parent = (await create(ownerA, { name: 'Finance', tenantId: tenantA })).json.result;
    for (let i = 0; i < 5; i++) await create(ownerA, { name: `Finance ${i}`, tenantId: tenantA, parentId: parent.id });
    await create(ownerA, { name: 'Unrelated', tenantId: tenantA });
    const first = await list(ownerA, { parentId: parent.id, pageSize: 2 });
    expect(first).toAnswer(200);
    expect(first.json.result).toMatchObject({ totalCount: 5, totalPages: 3, page: 1, pageSize: 2 });
    expect(first.json.result.items.map((d: { name: string }) => d.name)).toEqual(['Finance 4', 'Finance 3']);
    const last = await list(ownerA, { parentId: parent.id, pageSize: 2, page: 3 });
    expect(last.json.result.items.map((d: { name: string }) => d.name)).toEqual(['Finance 0']);
    expect(last.json.result.items[0]).toMatchObject({ parentName: 'Finance', parentId: parent.id });
    const unknownParent = await list(ownerA, { parentId: crypto.randomUUID() });
    expect(unknownParent).toAnswer(404);
    expect(await list(ownerA, { parentId: 'nope' })).toAnswer(400);
  });

  it('refuses a parent of another tenant or an unknown parent (404), writing nothing', async () => {
    const foreignParent = (await create(ownerB, { name: 'B root', tenantId: tenantB })).json.result;
    const before = (await list(ownerA)).json.result.totalCount;
    const res = await create(ownerA, { name: 'Sneaky', tenantId: tenantA, parentId: foreignParent.id });
    expect(res).toAnswer(404);
    expect(res.json.error).toMatchObject({ code: 'NOT_FOUND', message: 'Parent department not found' });
    expect(await create(ownerA, { name: 'Orphan', tenantId: tenantA, parentId: crypto.randomUUID() })).toAnswer(404);
    expect((await list(ownerA)).json.result.totalCount).toBe(before);
    expect(await find(ownerB, foreignParent.id)).toMatchObject({ childCount: 0 });
    // The foreign parent is invisible through the filter too.
    expect(await list(ownerA, { parentId: foreignParent.id })).toAnswer(404);
  });

  it('caps the nesting depth', async () => {
    const tenant = await newTenant();
    const owner = await tokenFor({ tenantId: tenant });
    let parentId: string | null = null;
    for (let depth = 0; depth <= MAX_DEPARTMENT_DEPTH; depth++) {
      const res = await create(owner, { name: `Level ${depth}`, tenantId: tenant, parentId });
      expect(res, `depth ${depth}`).toAnswer(201);
      parentId = res.json.result.id;
    }
    const tooDeep = await create(owner, { name: 'Too deep', tenantId: tenant, parentId });
    expect(tooDeep).toAnswer(400);
    expect(tooDeep.json.error.details[0].path).toBe('body.parentId');
    // The walk an update would run: moving the root under its deepest descendant is a cycle.
    const root = (await list(owner, { pageSize: 100 })).json.result.items.find(
      (d: { name: string }) => d.name === 'Level 0',
    );
    const lookup = async (id: string) => getDepartment(tenant, id);
    expect(await checkParentChain(root.id, parentId, lookup)).toEqual({ ok: false, reason: 'cycle' });
    expect(await checkParentChain(crypto.randomUUID(), parentId, lookup)).toEqual({ ok: false, reason: 'too-deep' });
    expect(await checkParentChain(crypto.randomUUID(), root.id, lookup)).toEqual({ ok: true, depth: 1 });
  });

  it('keeps childCount exact under parallel creates', async () => {
    const parent = (await create(ownerA, { name: 'Parallel', tenantId: tenantA })).json.result;
    const before = (await list(ownerA)).json.result.totalCount;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create(ownerA, { name: `P${i}`, tenantId: tenantA, parentId: parent.id })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(await find(ownerA, parent.id)).toMatchObject({ childCount: 10 });
    expect((await list(ownerA, { parentId: parent.id, pageSize: 100 })).json.result).toMatchObject({ totalCount: 10 });
    expect((await list(ownerA)).json.result.totalCount).toBe(before + 10);
  });

  it('keeps userCount exact through membership changes, also in parallel', async () => {
    const sales = (await create(ownerA, { name: 'Sales', tenantId: tenantA })).json.result;
    const support = (await create(ownerA, { name: 'Support', tenantId: tenantA })).json.result;
    const users = Array.from({ length: 8 }, () => crypto.randomUUID());
    await Promise.all(
      users.map(async (u) =>
        commitChange(
          await membershipChangeItems(tenantA, u, null, { roles: ['TenantMember'], departmentId: sales.id }),
          null,
        ),
      ),
    );
    expect(await find(ownerA, sales.id)).toMatchObject({ userCount: 8 });
    await Promise.all(
      users
        .slice(0, 3)
        .map(async (u) =>
          commitChange(
            await membershipChangeItems(
              tenantA,
              u,
              { roles: ['TenantMember'], departmentId: sales.id },
              { roles: ['TenantMember'], departmentId: support.id },
            ),
            null,
          ),
        ),
    );
    await commitChange(
      await membershipChangeItems(tenantA, users[7]!, { roles: ['TenantMember'], departmentId: sales.id }, null),
      null,
    );
    expect(await find(ownerA, sales.id)).toMatchObject({ userCount: 4 });
    expect(await find(ownerA, support.id)).toMatchObject({ userCount: 3 });
    expect(await departmentName(tenantA, support.id)).toBe('Support');
    expect(await departmentName(tenantA, null)).toBeNull();
    expect(await departmentName(tenantB, support.id)).toBeNull();
    // A department of another tenant cannot be joined: the counter update's condition fails.
    const foreign = await membershipChangeItems(tenantB, crypto.randomUUID(), null, {
      roles: [],
      departmentId: support.id,
    });
    await expect(commitChange(foreign, null)).rejects.toMatchObject({ status: 409, code: 'CONFLICT' });
  });

  it('keeps tenants apart and members read-only; a SystemAdmin names the tenant', async () => {
    expect(await list(ownerB, { tenantId: tenantA })).toAnswer(403);
    expect(await create(ownerB, { name: 'Planted', tenantId: tenantA })).toAnswer(403);
    expect(await create(memberA, { name: 'Member made', tenantId: tenantA })).toAnswer(403);
    const ownB = await list(ownerB, { pageSize: 100 });
    expect(ownB.json.result.items.every((d: { tenantId: string }) => d.tenantId === tenantB)).toBe(true);
    const made = await create(admin, { name: 'By admin', tenantId: tenantA });
    expect(made).toAnswer(201);
    expect(made.json.result.tenantId).toBe(tenantA);
    expect(await list(admin, { tenantId: tenantA })).toAnswer(200);
    expect(await create(admin, { name: 'Nowhere', tenantId: crypto.randomUUID() })).toAnswer(404);
    expect(await create(ownerA, { name: '', tenantId: tenantA })).toAnswer(400);
    expect(await create(ownerA, { name: 'Bad parent', tenantId: tenantA, parentId: 'x' })).toAnswer(400);
  });
});
