import { describe, expect, it } from 'vitest';
import { api, e2e } from '#test/support/e2e.ts';
import { joinWithCode, lastMailTo, STORY_PASSWORD as PASSWORD } from '#test/support/e2e-accounts.ts';

// The whole life of a tenant over HTTP, as its owner, a member and a SystemAdmin see it. Each actor
// calls from its own loopback address so the per-IP sign-in limits never mix them up.
const OWNER_IP = '127.0.0.21';
const MEMBER_IP = '127.0.0.22';
const ADMIN_IP = '127.0.0.23';

describe('onboarding story', () => {
  it('takes a tenant from onboarding to an organised team, audited for the SystemAdmin', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const ownerEmail = `owner-${tag}@story.example`;
    const memberEmail = `member-${tag}@story.example`;

    const started = await api('POST', '/api/onboarding/start', {
      localAddress: OWNER_IP,
      body: { tenantName: `Story ${tag}`, email: ownerEmail, firstName: 'Olive', lastName: 'Owner' },
    });
    expect(started).toAnswer(201);
    const ownerCode = started.json.result.invitationCode as string;
    expect(await lastMailTo(ownerEmail, /Invitation code: (\S+)/)).toBe(ownerCode);

    const owner = await joinWithCode(ownerEmail, ownerCode, OWNER_IP, 'Olive');
    expect(owner.user.roles).toEqual(['TenantOwner']);
    const tenantId = owner.user.tenantId as string;
    expect(owner.user.permissions).toContain('users:write');

    const tenants = await api('GET', '/api/tenants', { token: owner.token });
    expect(tenants.json.result.totalCount).toBe(1);
    const tenant = tenants.json.result.items[0];
    expect(tenant).toMatchObject({ id: tenantId, status: 1, isActive: true });

    const invited = await api('POST', `/api/tenants/${tenant.slug}/invitations`, {
      token: owner.token,
      body: { email: memberEmail, roles: ['TenantMember'] },
    });
    expect(invited).toAnswer(201);
    const memberCode = await lastMailTo(memberEmail, /Invitation code: (\S+)/);
    expect(memberCode).toBe(invited.json.result.invitationCode);
    const member = await joinWithCode(memberEmail, memberCode, MEMBER_IP, 'Milo');
    expect(member.user).toMatchObject({ tenantId, roles: ['TenantMember'] });
    const reused = await api('POST', '/api/auth/register', {
      localAddress: MEMBER_IP,
      body: {
        email: `late-${tag}@story.example`,
        password: PASSWORD,
        firstName: 'Late',
        lastName: 'Comer',
        invitationCode: memberCode,
      },
    });
    expect(reused).toAnswer(400);

    const role = await api('POST', '/api/roles', {
      token: owner.token,
      body: { name: 'Auditor', tenantId, description: 'Reads BCM' },
    });
    expect(role).toAnswer(201);
    const granted = await api('PUT', `/api/roles/${role.json.result.id}/permissions`, {
      token: owner.token,
      body: { permissions: ['bcm:read'] },
    });
    expect(granted).toAnswer(200);
    const department = await api('POST', '/api/departments', {
      token: owner.token,
      body: { name: 'Operations', tenantId },
    });
    expect(department).toAnswer(201);
    const group = await api('POST', '/api/groups', { token: owner.token, body: { name: 'Crisis team', tenantId } });
    expect(group).toAnswer(201);
    const added = await api('POST', `/api/groups/${group.json.result.id}/users?userId=${member.id}`, {
      token: owner.token,
    });
    expect(added).toAnswer(200);
    expect(added.json.result.memberCount).toBe(1);

    const updated = await api('PUT', `/api/users/${member.id}`, {
      token: owner.token,
      body: {
        firstName: 'Milo',
        lastName: 'Story',
        roles: ['TenantMember', 'Auditor'],
        departmentId: department.json.result.id,
        isActive: true,
      },
    });
    expect(updated).toAnswer(200);
    const detail = await api('GET', `/api/users/${member.id}`, { token: owner.token });
    expect(detail.json.result).toMatchObject({
      departmentName: 'Operations',
      groups: [{ id: group.json.result.id, name: 'Crisis team' }],
      roles: ['TenantMember', 'Auditor'],
    });
    const roles = await api('GET', '/api/roles', { token: owner.token });
    const counts = Object.fromEntries(
      roles.json.result.items.map((r: { name: string; userCount: number }) => [r.name, r.userCount]),
    );
    expect(counts).toMatchObject({ TenantOwner: 1, TenantMember: 1, Auditor: 1 });

    const memberWrite = await api('POST', '/api/suppliers', { token: member.token, body: { name: 'Nope', tenantId } });
    expect(memberWrite).toAnswer(403);

    const admin = await api('POST', '/api/auth/login', {
      localAddress: ADMIN_IP,
      body: { email: e2e().adminEmail, password: e2e().adminPassword },
    });
    expect(admin).toAnswer(200);
    const audit = await api('GET', '/api/admin/audit-logs?pageSize=100', { token: admin.json.result.accessToken });
    expect(audit).toAnswer(200);
    const mine = audit.json.result.items.filter(
      (e: { changes: string | null; entityId: string }) =>
        [tenantId, member.id, owner.id, role.json.result.id, department.json.result.id, group.json.result.id].includes(
          e.entityId,
        ) || [tenantId, ownerEmail, memberEmail].some((mark) => (e.changes ?? '').includes(mark)),
    );
    const types = new Set(mine.map((e: { entityType: string }) => e.entityType));
    for (const type of ['Tenant', 'User', 'Invitation', 'Role', 'Department', 'Group'])
      expect(types, type).toContain(type);
    const ownerAudit = await api('GET', '/api/admin/audit-logs', { token: owner.token });
    expect(ownerAudit).toAnswer(403);
  });
});
