import { listNewestFirst } from '#shared/data/collection.ts';
import { queryItems } from '#shared/data/query.ts';
import { getOr404 } from '#shared/data/read.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { departmentName, groupsOfUser } from '#areas/identity/org-counters.ts';
import { identityKeys, toUser, toUserDetail, type UserView } from '#areas/identity/records.ts';
import { resolveRoles, systemRoleName } from '#areas/identity/system-roles.ts';

export interface UserListQuery {
  page: number;
  pageSize: number;
  search?: string;
  roleFilter?: string;
  statusFilter?: 'active' | 'inactive';
}

/** The stored spelling of a role name (users carry canonical names), matched case-insensitively. */
async function canonicalRole(tenantId: string, name: string): Promise<string> {
  const system = systemRoleName(name);
  if (system) return system;
  const { found } = await resolveRoles(tenantId, [name]);
  return found[0]?.name ?? name;
}

/**
 * Users of a tenant newest first. Unfiltered: the maintained counter and one bounded Query.
 * Filtered: the tenant's user index read through the filter, so totalCount counts the matches.
 */
export async function listUsers(tenantId: string, q: UserListQuery) {
  const collection = identityKeys.users(tenantId);
  const role = q.roleFilter ? await canonicalRole(tenantId, q.roleFilter) : undefined;
  const isActive = q.statusFilter === undefined ? undefined : q.statusFilter === 'active';
  if (!q.search && role === undefined && isActive === undefined) {
    const { items, totalCount } = await listNewestFirst(collection, { page: q.page, pageSize: q.pageSize });
    return toPage(items.map(toUser), totalCount, q.page, q.pageSize);
  }
  const filters: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': collection };
  if (q.search) {
    filters.push('contains(#searchText, :search)');
    names['#searchText'] = 'searchText';
    values[':search'] = q.search.toLowerCase();
  }
  if (role !== undefined) {
    filters.push('contains(#roles, :role)');
    names['#roles'] = 'roles';
    values[':role'] = role;
  }
  if (isActive !== undefined) {
    // Users written before `isActive` existed count as active.
    filters.push(isActive ? '(attribute_not_exists(#active) OR #active = :active)' : '#active = :active');
    names['#active'] = 'isActive';
    values[':active'] = isActive;
  }
  const matches = await queryItems({
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: filters.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: false,
  });
  const start = (q.page - 1) * q.pageSize;
  return toPage(matches.slice(start, start + q.pageSize).map(toUser), matches.length, q.page, q.pageSize);
}

/** The detail of a user as seen before or after a change: its department's name and its groups added. */
export async function detailOf(tenantId: string, user: UserView) {
  const [deptName, groups] = await Promise.all([
    departmentName(tenantId, user.departmentId),
    groupsOfUser(tenantId, user.id),
  ]);
  return toUserDetail(user, deptName, groups);
}

/** User detail: the list item plus its department's name and its groups (404 for no such user in the tenant). */
export async function userDetail(tenantId: string, userId: string) {
  // The groups need only the ids, so they are read beside the user rather than after it.
  const [item, groups] = await Promise.all([
    getOr404(identityKeys.user(tenantId, userId), 'User'),
    groupsOfUser(tenantId, userId),
  ]);
  const user = toUser(item);
  return toUserDetail(user, await departmentName(tenantId, user.departmentId), groups);
}
