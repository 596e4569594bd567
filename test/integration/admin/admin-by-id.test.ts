import { beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '#test/support/invoke.ts';
import { createWorld, nextIp, PASSWORD, seedUser, type World } from '#test/support/fuzz/world.ts';

/**
 * The spec publishes the by-id routes without a tenantId: a SystemAdmin addresses a tenant
 * record by its id alone (the optional tenantId still narrows), and tenant callers stay inside
 * their own tenant.
 */
let world: World;
const call = (
  method: string,
  path: string,
  token: string,
  extra: { body?: unknown; query?: Record<string, string> } = {},
) => invoke(method, path, { token, ip: nextIp(), ...extra });

beforeAll(async () => {
  world = await createWorld();
});

const newSupplier = async (tenant: World['a']) => {
  const res = await call('POST', '/api/suppliers', tenant.owner, {
    body: { name: `Supplier ${crypto.randomUUID().slice(0, 6)}`, tenantId: tenant.id },
  });
  expect(res).toAnswer(201);
  return res.json.result.id as string;
};

describe('a SystemAdmin by id alone', () => {
  it('reads, updates, resets the password of and deletes a tenant user', async () => {
    const user = await seedUser(world.a.id, ['TenantMember']);
    const read = await call('GET', `/api/users/${user.id}`, world.admin);
    expect(read).toAnswer(200);
    expect(read.json.result).toMatchObject({ id: user.id, tenantId: world.a.id, email: user.email });

    const body = {
      firstName: 'Renamed',
      lastName: 'ByAdmin',
      phoneNumber: null,
      departmentId: null,
      roles: ['TenantMember'],
      isActive: true,
    };
    const updated = await call('PUT', `/api/users/${user.id.toUpperCase()}`, world.admin, { body });
    expect(updated).toAnswer(200);
    expect(updated.json.result).toMatchObject({ id: user.id, firstName: 'Renamed', tenantId: world.a.id });

    const reset = await call('PUT', `/api/users/${user.id}/password-reset`, world.admin, {
      body: { newPassword: 'Admin-Set-2024' },
    });
    expect(reset).toAnswer(200);
    const login = await invoke('POST', '/api/auth/login', {
      body: { email: user.email, password: 'Admin-Set-2024' },
      ip: nextIp(),
    });
    expect(login).toAnswer(200);

    const deleted = await call('DELETE', `/api/users/${user.id}`, world.admin);
    expect(deleted).toAnswer(204);
    expect(await call('GET', `/api/users/${user.id}`, world.admin)).toAnswer(404);
    expect(await call('GET', `/api/users/${user.id}`, world.a.owner)).toAnswer(404);
  });

  it('reads a supplier, edits a role and adds a user to a group', async () => {
    const supplierId = await newSupplier(world.b);
    const supplier = await call('GET', `/api/suppliers/${supplierId}`, world.admin);
    expect(supplier).toAnswer(200);
    expect(supplier.json.result).toMatchObject({ id: supplierId, tenantId: world.b.id });

    const role = await call('POST', '/api/roles', world.b.owner, {
      body: { name: `Role ${crypto.randomUUID().slice(0, 6)}`, tenantId: world.b.id },
    });
    const perms = await call('PUT', `/api/roles/${role.json.result.id}/permissions`, world.admin, {
      body: { permissions: ['suppliers:read'] },
    });
    expect(perms).toAnswer(200);
    expect(perms.json.result.permissions).toEqual(['suppliers:read']);

    const group = await call('POST', '/api/groups', world.b.owner, {
      body: { name: `Group ${crypto.randomUUID().slice(0, 6)}`, tenantId: world.b.id },
    });
    const member = await seedUser(world.b.id, ['TenantMember']);
    const added = await call('POST', `/api/groups/${group.json.result.id}/users`, world.admin, {
      query: { userId: member.id },
    });
    expect(added).toAnswer(200);
    expect(added.json.result.memberCount).toBe(1);
  });

  it('is still narrowed by tenantId: naming the wrong tenant is 404, an unknown id is 404', async () => {
    const supplierId = await newSupplier(world.a);
    const narrowed = await call('GET', `/api/suppliers/${supplierId}`, world.admin, {
      query: { tenantId: world.b.id },
    });
    expect(narrowed).toAnswer(404, 'NOT_FOUND');
    expect(
      await call('GET', `/api/suppliers/${supplierId}`, world.admin, { query: { tenantId: world.a.id } }),
    ).toAnswer(200);
    const unknown = await call('GET', `/api/users/${crypto.randomUUID()}`, world.admin);
    expect(unknown).toAnswer(404);
    expect(unknown.json.error.message).toBe('User not found');
  });

  it('does not reach accounts outside any tenant through the tenant user routes', async () => {
    const platformUser = await seedUser(null, []);
    expect(await call('GET', `/api/users/${platformUser.id}`, world.admin)).toAnswer(404);
    expect(await call('DELETE', `/api/users/${platformUser.id}`, world.admin)).toAnswer(404);
    const login = await invoke('POST', '/api/auth/login', {
      body: { email: platformUser.email, password: PASSWORD },
      ip: nextIp(),
    });
    expect(login).toAnswer(200);
  });
});

describe('tenant callers', () => {
  it("get 404 for another tenant's user and supplier ids, and change nothing", async () => {
    const supplierId = await newSupplier(world.a);
    const user = await seedUser(world.a.id, ['TenantMember']);
    expect(await call('GET', `/api/suppliers/${supplierId}`, world.b.owner)).toAnswer(404);
    expect(await call('GET', `/api/users/${user.id}`, world.b.owner)).toAnswer(404);
    expect(await call('DELETE', `/api/users/${user.id}`, world.b.owner)).toAnswer(404);
    const reset = await call('PUT', `/api/users/${user.id}/password-reset`, world.b.owner, {
      body: { newPassword: 'Stolen-Pass-2024' },
    });
    expect(reset).toAnswer(404);
    expect(await call('GET', `/api/users/${user.id}`, world.a.owner)).toAnswer(200);
    const login = await invoke('POST', '/api/auth/login', {
      body: { email: user.email, password: PASSWORD },
      ip: nextIp(),
    });
    expect(login).toAnswer(200);
  });
});
