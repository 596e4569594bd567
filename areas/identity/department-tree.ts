import { get } from '#shared/data/read.ts';
import { identityKeys, toDepartment, type DepartmentRecord } from './records.ts';

export type { DepartmentRecord };

/** Deepest allowed position in the tree (a root department has depth 0). */
export const MAX_DEPARTMENT_DEPTH = 20;

/** A department of the tenant with its depth in the tree. */
export async function getDepartment(
  tenantId: string,
  departmentId: string,
): Promise<(DepartmentRecord & { depth: number }) | undefined> {
  const item = await get(identityKeys.department(tenantId, departmentId));
  return item ? { ...toDepartment(item), depth: Number(item.depth ?? 0) } : undefined;
}

export type ParentLookup = (id: string) => Promise<{ parentId: string | null } | undefined>;

export type CycleCheck = { ok: true; depth: number } | { ok: false; reason: 'cycle' | 'too-deep' | 'missing' };

/**
 * Whether `departmentId` may sit under `newParentId`: walks the new parent's chain up to the root
 * (one read per level, capped at MAX_DEPARTMENT_DEPTH) and fails when the chain reaches the
 * department itself (a cycle), is longer than the cap, or breaks (a missing ancestor). On success
 * `depth` is the department's new depth. Creates never form a cycle (a new id is in no chain),
 * so they use the parent's stored depth instead; this is the check an update of `parentId` runs.
 */
export async function checkParentChain(
  departmentId: string,
  newParentId: string | null,
  lookup: ParentLookup,
): Promise<CycleCheck> {
  let depth = 0;
  for (let current = newParentId; current !== null; depth++) {
    if (current === departmentId) return { ok: false, reason: 'cycle' };
    if (depth >= MAX_DEPARTMENT_DEPTH) return { ok: false, reason: 'too-deep' };
    const node = await lookup(current);
    if (!node) return { ok: false, reason: 'missing' };
    current = node.parentId;
  }
  return { ok: true, depth };
}
