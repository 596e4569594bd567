import { asRead, nextRevision } from '#shared/data/as-read.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter } from '#shared/data/collection.ts';
import { commitChange, deleteItem, orConflict, updateItem, type Write } from '#shared/data/commit.ts';
import { sameIds } from '#shared/data/same-ids.ts';
import { conflict, notFound, validationError } from '#shared/http/errors.ts';
import type { UserUpdateInput } from '#areas/identity/routes/users.ts';
import { assertMayManageUser } from '#areas/identity/ceiling.ts';
import { getDepartment } from '#areas/identity/department-tree.ts';
import { countIntegrationEvents, integrationEventPut } from '#shared/data/integration-events.ts';
import { assignableRoles } from '#areas/identity/invitations.ts';
import { membershipChangeItems } from '#areas/identity/org-counters.ts';
import { hashPassword } from '#areas/identity/password.ts';
import { identityKeys, toUser, userSearchText, type UserItem } from '#areas/identity/records.ts';
import { revokeAllFamilies } from '#areas/identity/refresh-tokens.ts';
import { getUser } from '#areas/identity/user-accounts.ts';
import { committedUnless } from '#shared/data/write-one.ts';
import { detailOf } from './list.ts';
import { isActiveOwner, otherActiveOwners, readOwnerGuard, tenantChange } from './model.ts';

/** Read-decide-write rounds before a change that keeps losing to concurrent ones gives up (409). */
const MAX_ATTEMPTS = 8;

const lastOwner = () => conflict('The tenant must keep at least one active TenantOwner');
const busy = () => conflict('The user is being changed concurrently; retry');
const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * 10 * 2 ** Math.min(attempt, 5)));

/** A tenant user, strongly consistent: every change below is decided on it. */
async function readUser(tenantId: string, userId: string): Promise<UserItem> {
  const user = await getUser(tenantId, userId, true);
  if (!user) throw notFound('User');
  return user;
}

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

/**
 * PUT /api/users/{userId}: replaces the editable fields. Roles must be roles of the tenant and the
 * department a department of it. Role, department and group counters and the owner rule are kept
 * exact with conditions: a round that loses to a concurrent change of the user or of the tenant's
 * owners is read and decided again.
 */
export async function updateUser(principal: Principal, tenantId: string, userId: string, input: UserUpdateInput) {
  const roles = await assignableRoles(tenantId, input.roles, principal);
  const departmentId = input.departmentId ?? null;
  if (departmentId && !(await getDepartment(tenantId, departmentId))) {
    throw validationError([{ path: 'body.departmentId', message: 'No such department in this tenant' }]);
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt) await backoff(attempt);
    const before = await readUser(tenantId, userId);
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
    const was = toUser(before);
    const changes: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(after)) {
      const old = was[field as keyof typeof was];
      const same = Array.isArray(value) ? sameIds(value, old as string[]) : value === old;
      if (!same) changes[field] = value;
    }
    const view = { ...was, ...after };
    if (Object.keys(changes).length === 0) return detailOf(tenantId, view);

    const deactivated = was.isActive && !after.isActive;
    const owner = await ownerGuardFor(tenantId, before, isActiveOwner(was) && !isActiveOwner(after));
    const revision = asRead(before, 'revision');
    const now = new Date().toISOString();
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
    const membership = await membershipChangeItems(
      tenantId,
      userId,
      { roles: was.roles, departmentId: was.departmentId },
      { roles: after.roles, departmentId: after.departmentId },
    );
    const tenantItem = tenantChange(tenantId, owner);
    // The user or the owner guard changed since it was read: decide again.
    const changed = busy();
    const failed = await committedUnless(
      commitChange(
        [
          orConflict(
            updateItem(
              identityKeys.user(tenantId, userId),
              {
                ...after,
                searchText: userSearchText({ ...after, email: was.email }),
                updatedAt: now,
                revision: nextRevision(before),
              },
              {
                ...(deactivated ? { add: { sessionVersion: 1 } } : {}),
                condition: revision.condition,
                values: revision.values,
              },
            ),
            changed,
          ),
          tenantItem && orConflict(tenantItem, changed),
          ...membership.map((item) =>
            orConflict(item, conflict('A role or department of this change no longer exists; retry')),
          ),
          ...events,
        ],
        { entityType: 'User', entityId: userId, action: 'update', changes, actor: principal, tenantId },
        { now },
      ),
      changed,
    );
    if (failed) continue;
    await countIntegrationEvents(events.length);
    if (deactivated) await revokeAllFamilies(userId, 'user-deactivated');
    return detailOf(tenantId, view);
  }
  throw busy();
}

/**
 * DELETE /api/users/{userId}: the user, its e-mail claim, its seat, its role, department and group
 * memberships go in one transaction; then its refresh-token families are revoked. A round that loses
 * to a concurrent change (the user, the owners, a group membership gone meanwhile) is read again.
 */
export async function deleteUser(principal: Principal, tenantId: string, userId: string): Promise<void> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt) await backoff(attempt);
    const before = await readUser(tenantId, userId);
    if (userId === principal.userId) throw conflict('You cannot delete your own account');
    await assertMayManageUser(principal, tenantId, before);
    const was = toUser(before);
    const owner = await ownerGuardFor(tenantId, before, isActiveOwner(was));
    const revision = asRead(before, 'revision');
    const now = new Date().toISOString();
    const membership = await membershipChangeItems(
      tenantId,
      userId,
      { roles: was.roles, departmentId: was.departmentId },
      null,
    );
    const changed = busy();
    const writes: (Write | null)[] = [
      deleteItem(identityKeys.user(tenantId, userId), revision),
      deleteItem(identityKeys.email(was.email), 'attribute_not_exists(pk) OR userId = :id', { ':id': userId }),
      bumpCounter(identityKeys.users(tenantId), -1),
      tenantChange(tenantId, { freeSeat: true, ...owner }),
      ...membership,
      integrationEventPut('user.deleted', { tenantId, userId }, now),
    ];
    const failed = await committedUnless(
      commitChange(
        writes,
        {
          entityType: 'User',
          entityId: userId,
          action: 'delete',
          changes: { email: was.email, roles: was.roles },
          actor: principal,
          tenantId,
        },
        { now, onConflict: changed },
      ),
      changed,
    );
    if (failed) continue;
    await countIntegrationEvents(1);
    await revokeAllFamilies(userId, 'user-deleted');
    return;
  }
  throw busy();
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
  await assertMayManageUser(principal, tenantId, user);
  const passwordHash = await hashPassword(newPassword);
  const now = new Date().toISOString();
  await commitChange(
    [
      // Deleted since it was read.
      orConflict(
        updateItem(
          identityKeys.user(tenantId, userId),
          { passwordHash, passwordChangedAt: now, updatedAt: now },
          { add: { sessionVersion: 1 }, condition: 'attribute_exists(pk)' },
        ),
        notFound('User'),
      ),
      integrationEventPut('user.password-reset', { tenantId, userId }, now),
    ],
    {
      entityType: 'User',
      entityId: userId,
      action: 'password-reset',
      changes: { sessionsRevoked: true },
      actor: principal,
      tenantId,
    },
    { now },
  );
  await countIntegrationEvents(1);
  await revokeAllFamilies(userId, 'admin-password-reset');
  return null;
}
