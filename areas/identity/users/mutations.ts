import type { Principal } from '#shared/auth/access-token.ts';
import { hashPassword } from '#areas/identity/password.ts';
import { revokeAllFamilies } from '#areas/identity/refresh-tokens.ts';
import { auditPut, countAudit } from '#shared/data/audit.ts';
import { bumpCounter } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { transact, type TransactItem } from '#shared/data/transact.ts';
import { conflict, notFound, validationError } from '#shared/http/errors.ts';
import { getDepartment } from '#areas/identity/departments.ts';
import { countIntegrationEvents, integrationEventPut } from '#areas/identity/integration-events.ts';
import { assertMayManageUser } from '#areas/identity/ceiling.ts';
import { assignableRoles } from '#areas/identity/invitations.ts';
import { departmentName, groupsOfUser, membershipChangeItems } from '#areas/identity/org-counters.ts';
import { config } from '#shared/platform/config.ts';
import type { UserUpdateInput } from '#shared/routes/users.ts';
import {
  isActiveOwner,
  otherActiveOwners,
  readOwnerGuard,
  readUser,
  revisionCondition,
  tenantChange,
  toUser,
  type UserItem,
} from './model.ts';

/** Read-decide-write rounds before a change that keeps losing to concurrent ones gives up (409). */
const MAX_ATTEMPTS = 8;

const lastOwner = () => conflict('The tenant must keep at least one active TenantOwner');
const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * 10 * 2 ** Math.min(attempt, 5)));
const sameSet = (a: string[], b: string[]) =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

/**
 * When the change removes an active TenantOwner, the tenant must keep another: the guard is read
 * first, then the other owners are counted; the transaction bumps the guard only if it is unchanged.
 */
async function ownerGuardFor(tenantId: string, before: UserItem, leaving: boolean) {
  if (!leaving) return { guarded: false as const, guard: undefined };
  const guard = await readOwnerGuard(tenantId);
  if (guard === null) throw notFound('Tenant');
  if ((await otherActiveOwners(tenantId, before.id)) === 0) throw lastOwner();
  return { guarded: true as const, guard };
}

interface Built {
  items: TransactItem[];
  /** Index range of the role/department/group counter items. */
  membership: [number, number];
}

async function withMembership(
  head: TransactItem[],
  membership: Promise<TransactItem[]>,
  tail: TransactItem[],
): Promise<Built> {
  const counters = await membership;
  return { items: [...head, ...counters, ...tail], membership: [head.length, head.length + counters.length] };
}

const failedInRange = (failedAt: number[], [from, to]: [number, number]) => failedAt.some((i) => i >= from && i < to);

/**
 * PUT /api/users/{userId}: replaces the editable fields. Roles must be roles of the tenant and the
 * department a department of it. Role, department and group counters and the owner rule are kept
 * exact with conditions: a round that loses to a concurrent change is read and decided again.
 */
export async function updateUser(principal: Principal, tenantId: string, userId: string, input: UserUpdateInput) {
  const roles = await assignableRoles(tenantId, input.roles, principal);
  const departmentId = input.departmentId?.toLowerCase() ?? null;
  if (departmentId && !(await getDepartment(tenantId, departmentId))) {
    throw validationError([{ path: 'body.departmentId', message: 'No such department in this tenant' }]);
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt) await backoff(attempt);
    const before = await readUser(tenantId, userId);
    if (!before) throw notFound('User');
    await assertMayManageUser(principal, tenantId, before);
    if (userId === principal.userId && !input.isActive) throw conflict('You cannot deactivate your own account');

    const after = {
      firstName: input.firstName,
      lastName: input.lastName,
      phoneNumber: input.phoneNumber || null,
      departmentId,
      roles,
      isActive: input.isActive,
    };
    const was = { ...toUser(before as unknown as Record<string, unknown>) };
    const changes: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(after)) {
      const old = was[field as keyof typeof was];
      const same = Array.isArray(value) ? sameSet(value, old as string[]) : value === old;
      if (!same) changes[field] = value;
    }
    const view = { ...was, ...after };
    if (Object.keys(changes).length === 0) return detailOf(tenantId, view);

    const deactivated = was.isActive && !after.isActive;
    const owner = await ownerGuardFor(tenantId, before, isActiveOwner(was) && !isActiveOwner(after));
    const revision = revisionCondition(before);
    const now = new Date().toISOString();
    const userUpdate: TransactItem = {
      Update: {
        TableName: config.tableName,
        Key: keys.user(tenantId, userId),
        UpdateExpression:
          'SET firstName = :firstName, lastName = :lastName, phoneNumber = :phoneNumber, departmentId = :departmentId, #roles = :roles, isActive = :isActive, searchText = :searchText, updatedAt = :now, #rev = :nextRev' +
          (deactivated ? ' ADD sessionVersion :one' : ''),
        ConditionExpression: revision.expression,
        ExpressionAttributeNames: { '#roles': 'roles', '#rev': 'revision' },
        ExpressionAttributeValues: {
          ...revision.values,
          ':firstName': after.firstName,
          ':lastName': after.lastName,
          ':phoneNumber': after.phoneNumber,
          ':departmentId': after.departmentId,
          ':roles': after.roles,
          ':isActive': after.isActive,
          ':searchText': `${after.firstName} ${after.lastName} ${was.email}`.toLowerCase(),
          ':now': now,
          ':nextRev': (before.revision ?? 0) + 1,
          ...(deactivated ? { ':one': 1 } : {}),
        },
      },
    };
    const events = [integrationEventPut('user.updated', { tenantId, userId, fields: Object.keys(changes) }, now)];
    if ('roles' in changes || 'departmentId' in changes) {
      events.push(
        integrationEventPut(
          'membership.changed',
          { tenantId, userId, roles: after.roles, departmentId: after.departmentId },
          now,
        ),
      );
    }
    if ('isActive' in changes)
      events.push(
        integrationEventPut(after.isActive ? 'user.activated' : 'user.deactivated', { tenantId, userId }, now),
      );
    const tenantItem = tenantChange(tenantId, owner);
    const built = await withMembership(
      [userUpdate, ...(tenantItem ? [tenantItem] : [])],
      membershipChangeItems(
        tenantId,
        userId,
        { roles: was.roles, departmentId: was.departmentId },
        { roles: after.roles, departmentId: after.departmentId },
      ),
      [
        auditPut({ entityType: 'User', entityId: userId, action: 'update', changes, actor: principal, tenantId }, now),
        ...events,
      ],
    );
    const outcome = await transact(built.items);
    if (outcome.ok) {
      await Promise.all([countAudit(1), countIntegrationEvents(events.length)]);
      if (deactivated) await revokeAllFamilies(userId, 'user-deactivated');
      return detailOf(tenantId, view);
    }
    if (failedInRange(outcome.failedAt, built.membership))
      throw conflict('A role or department of this change no longer exists; retry');
    // The user or the owner guard changed since it was read: decide again.
  }
  throw conflict('The user is being changed concurrently; retry');
}

async function detailOf(tenantId: string, user: ReturnType<typeof toUser>) {
  const [deptName, groups] = await Promise.all([
    departmentName(tenantId, user.departmentId),
    groupsOfUser(tenantId, user.id),
  ]);
  return { ...user, departmentName: deptName, groups };
}

/**
 * DELETE /api/users/{userId}: the user, its e-mail claim, its seat, its role, department and group
 * memberships go in one transaction; then its refresh-token families are revoked.
 */
export async function deleteUser(principal: Principal, tenantId: string, userId: string) {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt) await backoff(attempt);
    const before = await readUser(tenantId, userId);
    if (!before) throw notFound('User');
    if (userId === principal.userId) throw conflict('You cannot delete your own account');
    await assertMayManageUser(principal, tenantId, before);
    const was = toUser(before as unknown as Record<string, unknown>);
    const owner = await ownerGuardFor(tenantId, before, isActiveOwner(was));
    const revision = revisionCondition(before);
    const now = new Date().toISOString();
    const built = await withMembership(
      [
        {
          Delete: {
            TableName: config.tableName,
            Key: keys.user(tenantId, userId),
            ConditionExpression: revision.expression,
            ExpressionAttributeNames: { '#rev': 'revision' },
            ...(Object.keys(revision.values).length ? { ExpressionAttributeValues: revision.values } : {}),
          },
        },
        {
          Delete: {
            TableName: config.tableName,
            Key: keys.unique('EMAIL', was.email),
            ConditionExpression: 'attribute_not_exists(pk) OR userId = :id',
            ExpressionAttributeValues: { ':id': userId },
          },
        },
        bumpCounter(keys.userCollection(tenantId), -1),
        tenantChange(tenantId, { freeSeat: true, ...owner })!,
      ],
      membershipChangeItems(tenantId, userId, { roles: was.roles, departmentId: was.departmentId }, null),
      [
        auditPut(
          {
            entityType: 'User',
            entityId: userId,
            action: 'delete',
            changes: { email: was.email, roles: was.roles },
            actor: principal,
            tenantId,
          },
          now,
        ),
        integrationEventPut('user.deleted', { tenantId, userId }, now),
      ],
    );
    const outcome = await transact(built.items);
    if (outcome.ok) {
      await Promise.all([countAudit(1), countIntegrationEvents(1)]);
      await revokeAllFamilies(userId, 'user-deleted');
      return;
    }
    if (failedInRange(outcome.failedAt, built.membership)) {
      // A group membership went away meanwhile (its counter moved with it): read again.
      continue;
    }
  }
  throw conflict('The user is being changed concurrently; retry');
}

/**
 * Administrator password reset: the new hash and a bumped session version in one write (every
 * session of the user ends), then the refresh-token families are marked revoked.
 */
export async function resetPassword(
  principal: Principal,
  tenantId: string,
  userId: string,
  newPassword: string,
): Promise<null> {
  const user = await readUser(tenantId, userId);
  if (!user) throw notFound('User');
  await assertMayManageUser(principal, tenantId, user);
  const passwordHash = await hashPassword(newPassword);
  const now = new Date().toISOString();
  const outcome = await transact([
    {
      Update: {
        TableName: config.tableName,
        Key: keys.user(tenantId, userId),
        UpdateExpression:
          'SET passwordHash = :hash, passwordChangedAt = :now, updatedAt = :now ADD sessionVersion :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':hash': passwordHash, ':now': now, ':one': 1 },
      },
    },
    auditPut(
      {
        entityType: 'User',
        entityId: userId,
        action: 'password-reset',
        changes: { sessionsRevoked: true },
        actor: principal,
        tenantId,
      },
      now,
    ),
    integrationEventPut('user.password-reset', { tenantId, userId }, now),
  ]);
  if (!outcome.ok) throw notFound('User');
  await Promise.all([countAudit(1), countIntegrationEvents(1)]);
  await revokeAllFamilies(userId, 'admin-password-reset');
  return null;
}
