import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/data/keys.ts';
import type { TransactItem } from '#shared/data/transact.ts';
import { tenantKey } from '#areas/identity/tenants.ts';
import type { UserRecord } from '#areas/identity/users.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { queryCount } from '#shared/data/query.ts';

/** A stored user item: the record plus bookkeeping (`revision` guards read-modify-write). */
export type UserItem = UserRecord & { revision?: number; sessionVersion?: number; pk: string; sk: string };

export const toUser = (item: Record<string, unknown>) => ({
  id: item.id as string,
  email: item.email as string,
  firstName: (item.firstName as string) ?? '',
  lastName: (item.lastName as string) ?? '',
  phoneNumber: (item.phoneNumber as string | null) ?? null,
  roles: Array.isArray(item.roles) ? (item.roles as string[]) : [],
  tenantId: item.tenantId as string,
  isActive: item.isActive !== false,
  isEmailVerified: item.isEmailVerified === true,
  avatarUrl: (item.avatarUrl as string | null) ?? null,
  departmentId: (item.departmentId as string | null) ?? null,
  createdAt: item.createdAt as string,
});

export type UserView = ReturnType<typeof toUser>;

/** Strongly consistent read of a tenant user, for decisions that lead to a write. */
export async function readUser(tenantId: string, userId: string): Promise<UserItem | undefined> {
  const out = await ddb().send(
    new GetCommand({ TableName: config.tableName, Key: keys.user(tenantId, userId), ConsistentRead: true }),
  );
  return out.Item as UserItem | undefined;
}

/** An owner for the "last TenantOwner" rule: active and holding TenantOwner. */
export const isActiveOwner = (u: Pick<UserRecord, 'isActive' | 'roles'>) =>
  u.isActive !== false && u.roles.includes('TenantOwner');

/** Condition that the user item is still the revision that was read. */
export function revisionCondition(before: UserItem) {
  return before.revision === undefined
    ? { expression: 'attribute_exists(pk) AND attribute_not_exists(#rev)', values: {} as Record<string, unknown> }
    : {
        expression: 'attribute_exists(pk) AND #rev = :rev',
        values: { ':rev': before.revision } as Record<string, unknown>,
      };
}

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
      ':pk': keys.userCollection(tenantId),
      ':owner': 'TenantOwner',
      ':true': true,
      ':me': userId,
    },
    ConsistentRead: true,
  });

/** The tenant item's `ownerGuard`, read strongly consistent before counting owners. */
export async function readOwnerGuard(tenantId: string): Promise<number | undefined | null> {
  const out = await ddb().send(
    new GetCommand({
      TableName: config.tableName,
      Key: tenantKey(tenantId),
      ConsistentRead: true,
      ProjectionExpression: 'pk, ownerGuard',
    }),
  );
  if (!out.Item) return null;
  return out.Item.ownerGuard as number | undefined;
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
      Key: tenantKey(tenantId),
      UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', adds.length ? `ADD ${adds.join(', ')}` : '']
        .filter(Boolean)
        .join(' '),
      ConditionExpression: condition,
      ExpressionAttributeValues: values,
    },
  };
}
