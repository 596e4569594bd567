import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, orConflict, putNew, type Write } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { notFound, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { getDepartment, MAX_DEPARTMENT_DEPTH } from '#areas/identity/department-tree.ts';
import { addToCount } from '#areas/identity/org-counters.ts';
import { departmentItem, identityKeys, toDepartment, type DepartmentRecord } from '#areas/identity/records.ts';

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
  const writes: Write[] = [
    putNew(departmentItem(department, depth)),
    bumpCounter(identityKeys.departments(tenantId), 1),
  ];
  // The parent went away since it was read.
  if (parent)
    writes.push(
      orConflict(
        addToCount(identityKeys.department(tenantId, parent.id), 'childCount', 1),
        notFound('Parent department'),
      ),
    );
  await commitChange(
    writes,
    {
      entityType: 'Department',
      entityId: department.id,
      action: 'create',
      changes: { name: department.name, parentId: department.parentId },
      actor,
      tenantId,
    },
    { now: department.createdAt },
  );
  return department;
}

/** All departments newest first, or one department's direct children (gsi2, counted by its childCount). */
export async function listDepartments(tenantId: string, q: { page: number; pageSize: number; parentId?: string }) {
  if (!q.parentId) {
    const { items, totalCount } = await listNewestFirst(identityKeys.departments(tenantId), q);
    return toPage(items.map(toDepartment), totalCount, q.page, q.pageSize);
  }
  const end = q.page * q.pageSize;
  const [parent, children] = await Promise.all([
    getDepartment(tenantId, q.parentId),
    childrenUntil(tenantId, q.parentId, end),
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
      ExpressionAttributeValues: { ':pk': identityKeys.departmentChildren(tenantId, parentId) },
      ScanIndexForward: false,
    },
    wanted,
  );
