import { beforeAll, describe, expect, it } from 'vitest';
import { api, type ApiResponse } from '#test/support/e2e.ts';
import { joinWithCode, lastMailTo, STORY_PASSWORD } from '#test/support/e2e-accounts.ts';

/**
 * The permission ceiling, as an attack reproduced it: a user holding only `UserManager` = [users:read,
 * users:write] tried to raise its own roles, reset a stronger user's password and invite a
 * stronger user. Each is refused with 403 and changes nothing; what it may do still works.
 */
const OWNER_IP = '127.0.0.41';
const MANAGER_IP = '127.0.0.42';
const ADMIN_USER_IP = '127.0.0.43';
const READER_IP = '127.0.0.44';

let tag: string;
let slug: string;
let tenantId: string;
let owner: Awaited<ReturnType<typeof joinWithCode>>;
let manager: Awaited<ReturnType<typeof joinWithCode>>;
let fullAdmin: Awaited<ReturnType<typeof joinWithCode>>;
let reader: Awaited<ReturnType<typeof joinWithCode>>;

const forbidden = (res: ApiResponse) => {
  expect(res).toAnswer(403);
  expect(res.json).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });
};

async function role(name: string, permissions: string[]) {
  const made = await api('POST', '/api/roles', { token: owner.token, body: { name, tenantId } });
  expect(made).toAnswer(201);
  const set = await api('PUT', `/api/roles/${made.json.result.id}/permissions`, {
    token: owner.token,
    body: { permissions },
  });
  expect(set).toAnswer(200);
}

async function invited(email: string, roles: string[], ip: string, name: string) {
  const inv = await api('POST', `/api/tenants/${slug}/invitations`, { token: owner.token, body: { email, roles } });
  expect(inv).toAnswer(201);
  return joinWithCode(email, inv.json.result.invitationCode, ip, name);
}

beforeAll(async () => {
  tag = crypto.randomUUID().slice(0, 8);
  const ownerEmail = `owner-${tag}@ceiling.example`;
  const started = await api('POST', '/api/onboarding/start', {
    localAddress: OWNER_IP,
    body: { tenantName: `Ceiling ${tag}`, email: ownerEmail, firstName: 'Olive', lastName: 'Owner' },
  });
  expect(started).toAnswer(201);
  owner = await joinWithCode(ownerEmail, await lastMailTo(ownerEmail, /Invitation code: (\S+)/), OWNER_IP, 'Olive');
  tenantId = owner.user.tenantId;
  slug = (await api('GET', '/api/tenants', { token: owner.token })).json.result.items[0].slug;

  await role('UserManager', ['users:read', 'users:write']);
  await role('FullAdmin', [
    'users:read',
    'users:write',
    'roles:read',
    'roles:write',
    'tenants:read',
    'tenants:write',
    'billing:read',
    'billing:manage',
    'suppliers:read',
    'suppliers:write',
  ]);
  await role('Reader', ['users:read']);
  manager = await invited(`manager-${tag}@ceiling.example`, ['UserManager'], MANAGER_IP, 'Manny');
  fullAdmin = await invited(`admin-${tag}@ceiling.example`, ['FullAdmin'], ADMIN_USER_IP, 'Ada');
  reader = await invited(`reader-${tag}@ceiling.example`, ['Reader'], READER_IP, 'Rita');
}, 60_000);

describe('a user manager under the permission ceiling', () => {
  it('cannot give itself a role with permissions it does not hold, even after a refresh', async () => {
    const raised = await api('PUT', `/api/users/${manager.id}`, {
      token: manager.token,
      body: { firstName: 'Manny', lastName: 'Story', roles: ['UserManager', 'FullAdmin'], isActive: true },
    });
    forbidden(raised);
    expect(raised.json.error.message).toContain('FullAdmin');
    const refreshed = await api('POST', '/api/auth/refresh-token', {
      localAddress: MANAGER_IP,
      token: manager.token,
      body: { accessToken: manager.token, refreshToken: manager.refreshToken },
    });
    expect(refreshed).toAnswer(200);
    const me = await api('GET', `/api/users/${manager.id}`, { token: refreshed.json.result.accessToken });
    expect(me.json.result.roles).toEqual(['UserManager']);
    manager = {
      ...manager,
      token: refreshed.json.result.accessToken,
      refreshToken: refreshed.json.result.refreshToken,
    };
  });

  it("cannot reset a stronger user's password (both spellings) nor update, deactivate or delete that user", async () => {
    forbidden(
      await api('PUT', `/api/users/${fullAdmin.id}/password-reset`, {
        token: manager.token,
        body: { newPassword: 'Taken-Over-2024' },
      }),
    );
    forbidden(
      await api('PUT', `/api/users/${fullAdmin.id}:password-reset`, {
        token: manager.token,
        body: { newPassword: 'Taken-Over-2024' },
      }),
    );
    forbidden(
      await api('PUT', `/api/users/${fullAdmin.id}`, {
        token: manager.token,
        body: { firstName: 'Ada', lastName: 'Story', roles: ['FullAdmin'], isActive: false },
      }),
    );
    forbidden(await api('DELETE', `/api/users/${fullAdmin.id}`, { token: manager.token }));
    const stolen = await api('POST', '/api/auth/login', {
      localAddress: MANAGER_IP,
      body: { email: fullAdmin.user.email, password: 'Taken-Over-2024' },
    });
    expect(stolen).toAnswer(401);
    const still = await api('POST', '/api/auth/login', {
      localAddress: ADMIN_USER_IP,
      body: { email: fullAdmin.user.email, password: STORY_PASSWORD },
    });
    expect(still).toAnswer(200);
    expect(still.json.result.user.roles).toEqual(['FullAdmin']);
  });

  it('cannot invite with a stronger role; nothing is issued', async () => {
    const email = `victim-${tag}@ceiling.example`;
    forbidden(
      await api('POST', `/api/tenants/${slug}/invitations`, {
        token: manager.token,
        body: { email, roles: ['FullAdmin'] },
      }),
    );
    forbidden(
      await api('POST', `/api/tenants/${slug}/invitations`, {
        token: manager.token,
        body: { email, roles: ['TenantOwner'] },
      }),
    );
    const outbox = (await api('GET', '/_local/outbox')).json as { to: string[] }[];
    expect(outbox.filter((m) => m.to.includes(email))).toEqual([]);
  });

  it('still manages users and roles within its own permissions', async () => {
    const inv = await api('POST', `/api/tenants/${slug}/invitations`, {
      token: manager.token,
      body: { email: `helper-${tag}@ceiling.example`, roles: ['Reader'] },
    });
    expect(inv).toAnswer(201);
    const renamed = await api('PUT', `/api/users/${reader.id}`, {
      token: manager.token,
      body: { firstName: 'Rita', lastName: 'Renamed', roles: ['Reader', 'UserManager'], isActive: true },
    });
    expect(renamed).toAnswer(200);
    const reset = await api('PUT', `/api/users/${reader.id}/password-reset`, {
      token: manager.token,
      body: { newPassword: 'Reset-By-Manager-1' },
    });
    expect(reset).toAnswer(200);
  });

  it("does not bind a TenantOwner; a user it promotes is then out of the manager's reach", async () => {
    const promoted = await api('PUT', `/api/users/${reader.id}`, {
      token: owner.token,
      body: { firstName: 'Rita', lastName: 'Renamed', roles: ['FullAdmin'], isActive: true },
    });
    expect(promoted).toAnswer(200);
    forbidden(await api('DELETE', `/api/users/${reader.id}`, { token: manager.token }));
  });
});
