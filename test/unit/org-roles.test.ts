import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { PERMISSIONS, SYSTEM_ROLE_PERMISSIONS } from '#shared/auth/permissions.ts';
import { keys } from '#shared/data/keys.ts';
import { membershipChangeItems } from '#areas/identity/org-counters.ts';
import { identityKeys, toRole } from '#areas/identity/records.ts';
import { permissionsForRoles, systemRoleId, systemRoleItems } from '#areas/identity/system-roles.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';

const tenant = '0b8e7c2a-1111-4222-8333-444455556666';
const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('system roles', () => {
  it('have stable, tenant-specific UUID v4-shaped ids', () => {
    const owner = systemRoleId(tenant, 'TenantOwner');
    expect(owner).toMatch(V4);
    expect(systemRoleId(tenant, 'TenantOwner')).toBe(owner);
    expect(systemRoleId(tenant, 'TenantMember')).not.toBe(owner);
    expect(systemRoleId(crypto.randomUUID(), 'TenantOwner')).not.toBe(owner);
  });

  it('are created with name claims and one counter update', () => {
    const items = systemRoleItems(tenant, '2026-01-31T09:15:00.000Z');
    expect(items).toHaveLength(5);
    const puts = items.flatMap((i) => (i.Put ? [i.Put] : []));
    expect(puts.map((p) => p.Item!.sk)).toEqual([
      systemRoleId(tenant, 'TenantOwner'),
      identityKeys.roleName(tenant, 'TenantOwner').sk,
      systemRoleId(tenant, 'TenantMember'),
      identityKeys.roleName(tenant, 'TenantMember').sk,
    ]);
    expect(puts.every((p) => p.ConditionExpression === 'attribute_not_exists(pk)')).toBe(true);
    expect(puts[0]!.Item).toMatchObject({
      name: 'TenantOwner',
      isSystem: true,
      userCount: 0,
      tenantId: tenant,
      gsi1pk: `${tenant}#ROLE`,
    });
    expect(puts[1]!.Item).toMatchObject({
      pk: `${tenant}#UNIQUE#ROLE_NAME#tenantowner`,
      roleId: systemRoleId(tenant, 'TenantOwner'),
    });
    expect(items[4]!.Update).toMatchObject({
      Key: keys.counter(`${tenant}#ROLE`),
      ExpressionAttributeValues: { ':n': 2 },
    });
    expect(JSON.stringify(items)).not.toContain('SystemAdmin');
  });

  it('show their grants from the code; custom roles drop grants no longer in the catalog', () => {
    expect(
      toRole({ id: 'x', name: 'TenantMember', isSystem: true, tenantId: tenant, permissions: [], createdAt: 'now' })
        .permissions,
    ).toEqual([...SYSTEM_ROLE_PERMISSIONS.TenantMember]);
    const custom = toRole({
      id: 'y',
      name: 'Custom',
      isSystem: false,
      tenantId: tenant,
      permissions: ['users:read', 'retired:perm'],
      createdAt: 'now',
      userCount: -1,
    });
    expect(custom).toMatchObject({ permissions: ['users:read'], userCount: 0, description: null, scope: null });
  });
});

describe('with DynamoDB mocked', () => {
  // Prepare: a fresh document client whose commands the mock answers.
  const mock = mockClient(DynamoDBDocumentClient);
  beforeEach(() => {
    mock.reset();
    ddb.install(undefined);
    ddb();
  });
  afterAll(() => {
    mock.restore();
    ddb.install(undefined);
  });

  it('permissionsForRoles reads nothing for system roles', async () => {
    expect(await permissionsForRoles(tenant, ['TenantOwner'])).toEqual([...PERMISSIONS]);
    expect(await permissionsForRoles(null, ['SystemAdmin', 'Custom'])).toEqual([...PERMISSIONS]);
    expect(mock.calls()).toHaveLength(0);
  });

  it('membershipChangeItems moves role and department counters by the difference only', async () => {
    const sales = crypto.randomUUID();
    const support = crypto.randomUUID();
    const customId = crypto.randomUUID();
    mock.on(BatchGetCommand).resolves({
      Responses: { [config.tableName]: [{ ...identityKeys.roleName(tenant, 'planner'), roleId: customId }] },
    });
    // Act
    const items = await membershipChangeItems(
      tenant,
      'user-1',
      { roles: ['TenantMember', 'SystemAdmin'], departmentId: sales },
      { roles: ['tenantmember', 'Planner'], departmentId: support },
    );
    // Assess
    const updates = items.map((i) => ({
      sk: i.Update!.Key!.sk,
      field: i.Update!.ExpressionAttributeNames!['#n'],
      by: i.Update!.ExpressionAttributeValues![':by'],
    }));
    expect(updates).toEqual([
      { sk: customId, field: 'userCount', by: 1 },
      { sk: sales, field: 'userCount', by: -1 },
      { sk: support, field: 'userCount', by: 1 },
    ]);
    expect(items.every((i) => i.Update!.ConditionExpression === 'attribute_exists(pk)')).toBe(true);
    expect(mock.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('membershipChangeItems refuses an unknown role and removes group memberships of a deleted user', async () => {
    mock.on(BatchGetCommand).resolves({ Responses: {} });
    await expect(
      membershipChangeItems(tenant, 'u', null, { roles: ['Ghost'], departmentId: null }),
    ).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    mock.on(QueryCommand).resolves({ Items: [{ groupId: 'g1', groupName: 'One' }] });
    const items = await membershipChangeItems(tenant, 'u', { roles: ['TenantOwner'], departmentId: null }, null);
    expect(items.map((i) => Object.keys(i)[0])).toEqual(['Update', 'Delete', 'Update']);
    expect(items[0]!.Update).toMatchObject({
      Key: keys.tenantItem(tenant, 'ROLE', systemRoleId(tenant, 'TenantOwner')),
      ExpressionAttributeValues: { ':by': -1 },
    });
    expect(items[1]!.Delete!.Key).toEqual(identityKeys.groupMember(tenant, 'g1', 'u'));
    expect(items[2]!.Update).toMatchObject({
      Key: keys.tenantItem(tenant, 'GROUP', 'g1'),
      ExpressionAttributeValues: { ':by': -1 },
    });
    expect(mock.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      IndexName: 'gsi2',
      ExpressionAttributeValues: { ':pk': identityKeys.userGroups(tenant, 'u') },
    });
  });
});
