import { deleteItem, type TransactItem } from '#shared/data/commit.ts';
import type { Key } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { validationError } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import { identityKeys, toUserGroupRef, type UserGroupRef } from './records.ts';
import { roleIdsByName, systemRoleName } from './system-roles.ts';

export interface Membership {
  roles: string[];
  departmentId: string | null;
}

/** `ADD field :n` on an item that must exist (so a counter never conjures a stub item). */
export function addToCount(key: Key, field: 'userCount' | 'memberCount' | 'childCount', by: number): TransactItem {
  return {
    Update: {
      TableName: config.tableName,
      Key: key,
      UpdateExpression: 'ADD #n :by',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#n': field },
      ExpressionAttributeValues: { ':by': by },
    },
  };
}

/** Lower-cased tenant role names (SystemAdmin is platform-level and counted nowhere). */
const tenantRoleNames = (m: Membership | null) =>
  new Set((m?.roles ?? []).filter((r) => systemRoleName(r) !== 'SystemAdmin').map((r) => r.toLowerCase()));

/**
 * Transaction items that keep role `userCount` and department `userCount` exact when a user's
 * membership changes (`before` null: a new user; `after` null: a deleted user, whose group
 * memberships go too, each decrementing its group's memberCount).
 */
export async function membershipChangeItems(
  tenantId: string,
  userId: string,
  before: Membership | null,
  after: Membership | null,
): Promise<TransactItem[]> {
  const items: TransactItem[] = [];
  const was = tenantRoleNames(before);
  const is = tenantRoleNames(after);
  const delta = new Map<string, number>();
  for (const name of was) if (!is.has(name)) delta.set(name, -1);
  for (const name of is) if (!was.has(name)) delta.set(name, 1);
  if (delta.size) {
    const ids = await roleIdsByName(tenantId, [...delta.keys()]);
    const unknown = [...delta].filter(([name, by]) => by > 0 && !ids.has(name)).map(([name]) => name);
    if (unknown.length)
      throw validationError([{ path: 'body.roles', message: `Unknown roles: ${unknown.join(', ')}` }]);
    for (const [name, by] of delta) {
      const id = ids.get(name);
      // A role that no longer resolves has nothing left to decrement.
      if (id) items.push(addToCount(identityKeys.role(tenantId, id), 'userCount', by));
    }
  }

  const fromDept = before?.departmentId ?? null;
  const toDept = after?.departmentId ?? null;
  if (fromDept !== toDept) {
    if (fromDept) items.push(addToCount(identityKeys.department(tenantId, fromDept), 'userCount', -1));
    if (toDept) items.push(addToCount(identityKeys.department(tenantId, toDept), 'userCount', 1));
  }

  if (before && !after) {
    for (const groupId of await groupIdsOfUser(tenantId, userId)) {
      items.push(
        deleteItem(identityKeys.groupMember(tenantId, groupId, userId), 'attribute_exists(pk)'),
        addToCount(identityKeys.group(tenantId, groupId), 'memberCount', -1),
      );
    }
  }
  return items;
}

const queryUserGroups = (tenantId: string, userId: string) =>
  queryItems({
    TableName: config.tableName,
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': identityKeys.userGroups(tenantId, userId) },
  });

const groupIdsOfUser = async (tenantId: string, userId: string) =>
  (await queryUserGroups(tenantId, userId)).map((m) => m.groupId as string);

/** The user's groups as {id, name}[] (for user detail). */
export async function groupsOfUser(tenantId: string, userId: string): Promise<UserGroupRef[]> {
  return (await queryUserGroups(tenantId, userId)).map(toUserGroupRef);
}

/** Department name for user detail, or null. */
export async function departmentName(tenantId: string, departmentId: string | null): Promise<string | null> {
  if (!departmentId) return null;
  const item = await get<{ name?: string }>(identityKeys.department(tenantId, departmentId), { attributes: ['name'] });
  return item?.name ?? null;
}
