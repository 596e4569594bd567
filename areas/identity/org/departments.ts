import type { Principal } from '#shared/auth/access-token.ts';
import { auditPut, countAudit } from '#shared/data/audit.ts';
import { bumpCounter, listNewestFirst, putNew } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { transact, type TransactItem } from '#shared/data/transact.ts';
import { notFound, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import {
  MAX_DEPARTMENT_DEPTH,
  departmentCollection,
  departmentKey,
  getDepartment,
  toDepartment,
  type DepartmentRecord,
} from '#areas/identity/departments.ts';
import { addToCount } from '#areas/identity/org-counters.ts';
import { config } from '#shared/platform/config.ts';
import { queryItems } from '#shared/data/query.ts';

export interface NewDepartment {
  name: string;
  parentId?: string | null;
}

/**
 * The parent must be a department of the same tenant (its key is built with this tenant, so a
 * foreign id is simply not found: 404). The parent's childCount moves in the same transaction,
 * conditioned on the parent still existing. A new department can never close a cycle; the depth
 * cap bounds the chain that `checkParentChain` walks once departments can be moved.
 */
export async function createDepartment(
  tenantId: string,
  input: NewDepartment,
  actor: Principal,
): Promise<DepartmentRecord> {
  const parent = input.parentId ? await getDepartment(tenantId, input.parentId) : undefined;
  if (input.parentId && !parent) throw notFound('Parent department');
  const depth = parent ? parent.depth + 1 : 0;
  if (depth > MAX_DEPARTMENT_DEPTH) {
    throw validationError([
      { path: 'body.parentId', message: `Departments nest at most ${MAX_DEPARTMENT_DEPTH} levels deep` },
    ]);
  }
  const department: DepartmentRecord = {
    id: crypto.randomUUID(),
    name: input.name,
    tenantId,
    parentId: parent?.id ?? null,
    parentName: parent?.name ?? null,
    childCount: 0,
    userCount: 0,
    createdAt: new Date().toISOString(),
  };
  const collection = departmentCollection(tenantId);
  const items: TransactItem[] = [
    putNew({
      ...departmentKey(tenantId, department.id),
      ...keys.newestFirst(collection, department.createdAt, department.id),
      gsi2pk: keys.departmentChildren(tenantId, department.parentId),
      gsi2sk: `${department.createdAt}#${department.id}`,
      ...department,
      depth,
      searchText: department.name.toLowerCase(),
    }),
    bumpCounter(collection, 1),
    auditPut(
      {
        entityType: 'Department',
        entityId: department.id,
        action: 'create',
        changes: { name: department.name, parentId: department.parentId },
        actor,
        tenantId,
      },
      department.createdAt,
    ),
  ];
  if (parent) items.push(addToCount(departmentKey(tenantId, parent.id), 'childCount', 1));
  const outcome = await transact(items);
  if (!outcome.ok) throw notFound('Parent department');
  await countAudit(1);
  return department;
}

/** All departments newest first, or one department's direct children (gsi2, counted by its childCount). */
export async function listDepartments(tenantId: string, q: { page: number; pageSize: number; parentId?: string }) {
  if (!q.parentId) {
    const { items, totalCount } = await listNewestFirst(departmentCollection(tenantId), q);
    return toPage(items.map(toDepartment), totalCount, q.page, q.pageSize);
  }
  const parentId = q.parentId.toLowerCase();
  const end = q.page * q.pageSize;
  const [parent, children] = await Promise.all([
    getDepartment(tenantId, parentId),
    childrenUntil(tenantId, parentId, end),
  ]);
  if (!parent) throw notFound('Parent department');
  return toPage(children.slice(end - q.pageSize, end).map(toDepartment), parent.childCount, q.page, q.pageSize);
}

const childrenUntil = (tenantId: string, parentId: string, wanted: number) =>
  queryItems(
    {
      TableName: config.tableName,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.departmentChildren(tenantId, parentId) },
      ScanIndexForward: false,
    },
    wanted,
  );
