import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { get } from '#shared/data/read.ts';
import { PERMISSIONS, SYSTEM_ROLE_PERMISSIONS } from '#shared/auth/permissions.ts';
import { keys } from '#shared/data/keys.ts';
import { commitChange } from '#shared/data/commit.ts';
import { permissionsForRoles, resolveRoles, systemRoleId, systemRoleItems } from '#areas/identity/system-roles.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

async function newTenant(withRoles = true) {
  const id = crypto.randomUUID();
  await ddb().send(
    new PutCommand({ TableName: config.tableName, Item: { ...keys.platformItem('TENANT', id), id, status: 1 } }),
  );
  if (withRoles) await commitChange(systemRoleItems(id, new Date().toISOString()), null);
  return id;
}

const tenantA = { id: '', owner: '', member: '' };
let ownerB: string;
let tenantB: string;
let admin: string;

beforeAll(async () => {
  tenantA.id = await newTenant();
  tenantB = await newTenant();
  tenantA.owner = await tokenFor({ tenantId: tenantA.id });
  tenantA.member = await tokenFor({ tenantId: tenantA.id, role: 'TenantMember' });
  ownerB = await tokenFor({ tenantId: tenantB });
  admin = await tokenFor({ role: 'SystemAdmin' });
});

const createRole = (token: string, body: Record<string, unknown>) => invoke('POST', '/api/roles', { token, body });

describe('roles list and create', () => {
  it('lists the system roles of a new tenant with userCount', async () => {
    const res = await invoke('GET', '/api/roles', { token: tenantA.member });
    expect(res).toAnswer(200);
    expect(res.json.result).toMatchObject({ totalCount: 2, totalPages: 1, page: 1, pageSize: 20 });
    const byName = Object.fromEntries(res.json.result.items.map((r: { name: string }) => [r.name, r]));
    expect(byName.TenantOwner).toMatchObject({
      isSystem: true,
      tenantId: tenantA.id,
      userCount: 0,
      scope: null,
      permissions: [...PERMISSIONS],
    });
    expect(byName.TenantMember.permissions).toEqual([...SYSTEM_ROLE_PERMISSIONS.TenantMember]);
    expect(byName.TenantOwner.id).toBe(systemRoleId(tenantA.id, 'TenantOwner'));
  });

  it('creates a custom role (201, empty permissions) and lists it first', async () => {
    const res = await createRole(tenantA.owner, {
      name: 'Auditor',
      description: 'Reads things',
      tenantId: tenantA.id,
      scope: 'bcm',
      permissions: ['users:write'],
      isSystem: true,
      userCount: 9,
    });
    expect(res).toAnswer(201);
    expect(res.json.result).toMatchObject({
      name: 'Auditor',
      description: 'Reads things',
      scope: 'bcm',
      isSystem: false,
      tenantId: tenantA.id,
      permissions: [],
      userCount: 0,
    });
    expect(res.json.result.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const list = await invoke('GET', '/api/roles', { token: tenantA.owner });
    expect(list.json.result.totalCount).toBe(3);
    expect(list.json.result.items[0]).toEqual(res.json.result);
  });

  it('refuses a duplicate name (any case), a reserved name and a bad name, writing nothing', async () => {
    await createRole(tenantA.owner, { name: 'Editors', tenantId: tenantA.id });
    const before = (await invoke('GET', '/api/roles', { token: tenantA.owner })).json.result.totalCount;
    const dup = await createRole(tenantA.owner, { name: 'EDITORS', tenantId: tenantA.id });
    expect(dup).toAnswer(409, 'CONFLICT');
    for (const name of ['TenantOwner', 'systemadmin', 'tenantMEMBER']) {
      const reserved = await createRole(tenantA.owner, { name, tenantId: tenantA.id });
      expect(reserved, name).toAnswer(409);
    }
    const bad = await createRole(tenantA.owner, { name: '<script>', tenantId: tenantA.id });
    expect(bad).toAnswer(400);
    expect(bad.json.error.details[0].path).toBe('body.name');
    const missingTenant = await createRole(tenantA.owner, { name: 'NoTenant' });
    expect(missingTenant).toAnswer(400);
    expect((await invoke('GET', '/api/roles', { token: tenantA.owner })).json.result.totalCount).toBe(before);
    // Another tenant may use the same name.
    expect(await createRole(ownerB, { name: 'Editors', tenantId: tenantB })).toAnswer(201);
  });

  it('creates exactly one of many concurrent same-name roles and keeps totalCount exact', async () => {
    const tenant = await newTenant();
    const owner = await tokenFor({ tenantId: tenant });
    const same = await Promise.all(
      Array.from({ length: 6 }, () => createRole(owner, { name: 'Racer', tenantId: tenant })),
    );
    expect(same.filter((r) => r.status === 201)).toHaveLength(1);
    expect(same.filter((r) => r.status === 409)).toHaveLength(5);
    const distinct = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createRole(owner, { name: `Role ${i}`, tenantId: tenant })),
    );
    expect(distinct.map((r) => r.status)).toEqual(Array(8).fill(201));
    const list = await invoke('GET', '/api/roles', { token: owner, query: { pageSize: 100 } });
    expect(list.json.result.totalCount).toBe(2 + 1 + 8);
    expect(list.json.result.items).toHaveLength(11);
  });

  it('keeps tenants apart and members read-only', async () => {
    expect(await invoke('GET', '/api/roles', { token: ownerB, query: { tenantId: tenantA.id } })).toAnswer(403);
    expect(await createRole(ownerB, { name: 'Planted', tenantId: tenantA.id })).toAnswer(403);
    const denied = await createRole(tenantA.member, { name: 'MemberMade', tenantId: tenantA.id });
    expect(denied).toAnswer(403, 'FORBIDDEN');
    const ownB = await invoke('GET', '/api/roles', { token: ownerB, query: { pageSize: 100 } });
    expect(ownB.json.result.items.every((r: { tenantId: string }) => r.tenantId === tenantB)).toBe(true);
    expect(await invoke('GET', '/api/roles')).toAnswer(401);
  });

  it('lets a SystemAdmin act on a named, existing tenant', async () => {
    const list = await invoke('GET', '/api/roles', { token: admin, query: { tenantId: tenantA.id } });
    expect(list).toAnswer(200);
    expect(list.json.result.items.every((r: { tenantId: string }) => r.tenantId === tenantA.id)).toBe(true);
    const made = await createRole(admin, { name: 'Platform Made', tenantId: tenantA.id });
    expect(made).toAnswer(201);
    expect(await invoke('GET', '/api/roles', { token: admin })).toAnswer(400);
    expect(await invoke('GET', '/api/roles', { token: admin, query: { tenantId: crypto.randomUUID() } })).toAnswer(404);
  });

  it('gives a tenant that predates system roles its system roles on first use', async () => {
    const tenant = await newTenant(false);
    const owner = await tokenFor({ tenantId: tenant });
    const list = await invoke('GET', '/api/roles', { token: owner });
    expect(list.json.result.totalCount).toBe(2);
    const again = await invoke('GET', '/api/roles', { token: owner });
    expect(again.json.result.totalCount).toBe(2);
    const phantom = await tokenFor({ tenantId: crypto.randomUUID() });
    expect((await invoke('GET', '/api/roles', { token: phantom })).json.result.totalCount).toBe(0);
    const other = await newTenant(false);
    const { found, missing } = await resolveRoles(other, ['TenantOwner']);
    expect(found.map((r) => r.name)).toEqual(['TenantOwner']);
    expect(missing).toEqual([]);
  });
});

describe('PUT /api/roles/{roleId}/permissions', () => {
  let roleId: string;
  beforeAll(async () => {
    roleId = (await createRole(tenantA.owner, { name: 'Planner', tenantId: tenantA.id })).json.result.id;
  });
  const put = (token: string, id: string, permissions: unknown, query?: Record<string, string>) =>
    invoke('PUT', `/api/roles/${id}/permissions`, { token, body: { permissions }, query });

  it('replaces the permissions with catalog entries (deduplicated, catalog order) and audits it', async () => {
    const res = await put(tenantA.owner, roleId, ['users:read', 'bcm:write', 'users:read']);
    expect(res).toAnswer(200);
    expect(res.json.result).toMatchObject({ id: roleId, name: 'Planner', permissions: ['users:read', 'bcm:write'] });
    const listed = (
      await invoke('GET', '/api/roles', { token: tenantA.owner, query: { pageSize: 100 } })
    ).json.result.items.find((r: { id: string }) => r.id === roleId);
    expect(listed.permissions).toEqual(['users:read', 'bcm:write']);
    expect(await permissionsForRoles(tenantA.id, ['Planner'])).toEqual(['users:read', 'bcm:write']);
    const audit = await invoke('GET', '/api/admin/audit-logs', { token: admin, query: { entityType: 'Role' } });
    const entry = audit.json.result.items.find(
      (e: { entityId: string; action: string }) => e.entityId === roleId && e.action === 'update-permissions',
    );
    expect(JSON.parse(entry.changes).permissions).toEqual(['users:read', 'bcm:write']);
    expect(entry.userName).toBe('tenantowner@example.com');
    const cleared = await put(tenantA.owner, roleId, []);
    expect(cleared.json.result.permissions).toEqual([]);
  });

  it('rejects unknown permissions listing each, writing nothing', async () => {
    await put(tenantA.owner, roleId, ['users:read']);
    const res = await put(tenantA.owner, roleId, ['users:read', 'users:destroy', 'SystemAdmin']);
    expect(res).toAnswer(400, 'VALIDATION_ERROR');
    expect(res.json.error.details).toEqual([
      { path: 'body.permissions.1', message: "Unknown permission 'users:destroy'" },
      { path: 'body.permissions.2', message: "Unknown permission 'SystemAdmin'" },
    ]);
    expect((await get<{ permissions: string[] }>(keys.tenantItem(tenantA.id, 'ROLE', roleId)))!.permissions).toEqual([
      'users:read',
    ]);
    expect(await put(tenantA.owner, roleId, 'users:read')).toAnswer(400);
    expect(await invoke('PUT', `/api/roles/${roleId}/permissions`, { token: tenantA.owner, body: {} })).toAnswer(400);
  });

  it('never edits a system role (409)', async () => {
    for (const name of ['TenantOwner', 'TenantMember'] as const) {
      const res = await put(tenantA.owner, systemRoleId(tenantA.id, name), ['users:read']);
      expect(res).toAnswer(409, 'CONFLICT');
    }
    expect(await put(admin, systemRoleId(tenantA.id, 'TenantMember'), [], { tenantId: tenantA.id })).toAnswer(409);
  });

  it('refuses foreign and unknown role ids (404), members (403) and grants beyond the caller', async () => {
    const foreign = await put(ownerB, roleId, ['users:read']);
    expect(foreign).toAnswer(404, 'NOT_FOUND');
    expect(await put(ownerB, roleId, [], { tenantId: tenantA.id })).toAnswer(403);
    expect(await put(tenantA.owner, crypto.randomUUID(), ['users:read'])).toAnswer(404);
    expect(await put(tenantA.owner, 'not-a-uuid', ['users:read'])).toAnswer(400);
    expect(await put(tenantA.member, roleId, ['users:read'])).toAnswer(403);
    const limited = await tokenFor({
      tenantId: tenantA.id,
      roles: ['Planner'],
      permissions: ['roles:read', 'roles:write', 'users:read'],
    });
    const escalate = await put(limited, roleId, ['users:read', 'billing:manage']);
    expect(escalate).toAnswer(403);
    expect(escalate.json.error.message).toContain('billing:manage');
    expect(await put(limited, roleId, ['users:read'])).toAnswer(200);
    const byAdmin = await put(admin, roleId, ['billing:manage'], { tenantId: tenantA.id });
    expect(byAdmin.json.result.permissions).toEqual(['billing:manage']);
  });
});

describe('role contracts used by users and sign-in', () => {
  it('resolves names case-insensitively, reports unknown ones and never resolves SystemAdmin', async () => {
    await createRole(tenantA.owner, { name: 'Reviewer', tenantId: tenantA.id });
    const { found, missing } = await resolveRoles(tenantA.id, [
      'tenantowner',
      'Reviewer',
      'Ghost',
      'SystemAdmin',
      'TenantMember',
    ]);
    expect(found.map((r) => r.name).sort()).toEqual(['Reviewer', 'TenantMember', 'TenantOwner']);
    expect(missing).toEqual(['Ghost', 'SystemAdmin']);
    expect((await resolveRoles(tenantB, ['Reviewer'])).missing).toEqual(['Reviewer']);
  });

  it('derives permissions from system and custom roles', async () => {
    expect(await permissionsForRoles(tenantA.id, ['TenantMember'])).toEqual([...SYSTEM_ROLE_PERMISSIONS.TenantMember]);
    expect(await permissionsForRoles(null, ['SystemAdmin'])).toEqual([...PERMISSIONS]);
    expect(await permissionsForRoles(tenantA.id, ['Ghost'])).toEqual([]);
    const id = (await createRole(tenantA.owner, { name: 'Biller', tenantId: tenantA.id })).json.result.id;
    await invoke('PUT', `/api/roles/${id}/permissions`, {
      token: tenantA.owner,
      body: { permissions: ['billing:manage', 'users:read'] },
    });
    expect(await permissionsForRoles(tenantA.id, ['TenantMember', 'Biller'])).toEqual(
      PERMISSIONS.filter((p) => p.endsWith(':read') || p === 'billing:manage'),
    );
    expect(await permissionsForRoles(tenantB, ['Biller'])).toEqual([]);
  });
});
