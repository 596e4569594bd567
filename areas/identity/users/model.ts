import type { TransactItem } from '#shared/data/commit.ts';
import { queryCount } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { config } from '#shared/platform/config.ts';
import { identityKeys, type UserRecord } from '#areas/identity/records.ts';

/** An owner for the "last TenantOwner" rule: active and holding TenantOwner. */
export const isActiveOwner = (u: Pick<UserRecord, 'isActive' | 'roles'>) =>
  u.isActive !== false && u.roles.includes('TenantOwner');

/**
 * Active TenantOwners of the tenant other than `userId`: a strongly consistent Query of the
 * tenant's user partition (base table, not the index), run only when an owner is about to go.
 */
export const otherActiveOwners = (tenantId: string, userId: string) =>
  queryCount({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk',
    FilterExpression: 'contains(#roles, :owner) AND isActive = :true AND #id <> :me',
    ExpressionAttributeNames: { '#roles': 'roles', '#id': 'id' },
    ExpressionAttributeValues: {
      ':pk': identityKeys.users(tenantId),
      ':owner': 'TenantOwner',
      ':true': true,
      ':me': userId,
    },
    ConsistentRead: true,
  });

/** The tenant item's `ownerGuard`, read strongly consistent before counting owners; null when the tenant is gone. */
export async function readOwnerGuard(tenantId: string): Promise<number | undefined | null> {
  const tenant = await get<{ ownerGuard?: number }>(identityKeys.tenant(tenantId), {
    consistent: true,
    attributes: ['pk', 'ownerGuard'],
  });
  return tenant ? tenant.ownerGuard : null;
}

/**
 * One update of the tenant item for a user change: frees a seat and/or bumps the owner guard.
 * Every change that removes an active owner bumps the guard conditionally on the value read
 * before counting the other owners, so two such changes racing cannot both pass the count.
 */
export function tenantChange(
  tenantId: string,
  opts: { freeSeat?: boolean; guard?: number | undefined | null; guarded?: boolean },
): TransactItem | null {
  if (!opts.freeSeat && !opts.guarded) return null;
  const adds: string[] = [];
  const sets: string[] = [];
  const values: Record<string, unknown> = {};
  let condition = 'attribute_exists(pk)';
  if (opts.freeSeat) {
    adds.push('seatCount :minusOne');
    values[':minusOne'] = -1;
  }
  if (opts.guarded) {
    sets.push('ownerGuard = :nextGuard');
    values[':nextGuard'] = (opts.guard ?? 0) + 1;
    if (opts.guard === undefined || opts.guard === null) condition += ' AND attribute_not_exists(ownerGuard)';
    else {
      condition += ' AND ownerGuard = :guard';
      values[':guard'] = opts.guard;
    }
  }
  return {
    Update: {
      TableName: config.tableName,
      Key: identityKeys.tenant(tenantId),
      UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', adds.length ? `ADD ${adds.join(', ')}` : '']
        .filter(Boolean)
        .join(' '),
      ConditionExpression: condition,
      ExpressionAttributeValues: values,
    },
  };
}
