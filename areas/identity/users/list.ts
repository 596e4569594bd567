import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { listNewestFirst } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { toPage } from '#shared/http/responses.ts';
import { departmentName, groupsOfUser } from '#areas/identity/org-counters.ts';
import { resolveRoles, systemRoleName } from '#areas/identity/roles.ts';
import { getUser } from '#areas/identity/users.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { toUser } from './model.ts';

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
  const collection = keys.userCollection(tenantId);
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
  const input: QueryCommandInput = {
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: filters.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: false,
  };
  const matches: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(new QueryCommand({ ...input, ExclusiveStartKey }));
    matches.push(...(out.Items ?? []));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  const start = (q.page - 1) * q.pageSize;
  return toPage(matches.slice(start, start + q.pageSize).map(toUser), matches.length, q.page, q.pageSize);
}

/** User detail: the list item plus its department's name and its groups. */
export async function userDetail(tenantId: string, userId: string) {
  // The groups need only the ids, so they are read beside the user rather than after it.
  const [item, groups] = await Promise.all([getUser(tenantId, userId), groupsOfUser(tenantId, userId)]);
  if (!item) return undefined;
  const user = toUser(item as unknown as Record<string, unknown>);
  return { ...user, departmentName: await departmentName(tenantId, user.departmentId), groups };
}
