import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter } from '#shared/data/collection.ts';
import { commitChange, orConflict, putNew, type Write } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { duplicateEmail } from './errors.ts';
import { identityKeys, normalizeEmail, userItem, type EmailOwner, type UserItem, type UserRecord } from './records.ts';

export type { UserRecord };

export async function findUserByEmail(email: string): Promise<UserItem | undefined> {
  const owner = await get<EmailOwner>(identityKeys.email(normalizeEmail(email)));
  if (!owner) return undefined;
  return get<UserItem>(identityKeys.user(owner.tenantId ?? null, owner.userId));
}

/** A user; strongly consistent when the caller is about to decide a write on it. */
export const getUser = (tenantId: string | null, userId: string, consistent = false) =>
  get<UserItem>(identityKeys.user(tenantId, userId), { consistent });

/**
 * Creates a user and claims its e-mail in one transaction, so two concurrent registrations of
 * one address give exactly one user; the loser gets 400 DUPLICATE_EMAIL. `extra` items join the
 * transaction, each with its own conflict answer.
 */
export async function createUser(
  user: UserRecord,
  actor: Pick<Principal, 'userId' | 'email'> | null,
  extra: readonly Write[] = [],
): Promise<void> {
  const email = normalizeEmail(user.email);
  await commitChange(
    [
      orConflict(putNew({ ...identityKeys.email(email), userId: user.id, tenantId: user.tenantId }), duplicateEmail()),
      putNew(userItem(user)),
      bumpCounter(identityKeys.users(user.tenantId), 1),
      ...extra,
    ],
    {
      entityType: 'User',
      entityId: user.id,
      action: 'create',
      changes: { email, firstName: user.firstName, lastName: user.lastName, roles: user.roles },
      actor: actor ?? { userId: user.id, email },
      tenantId: user.tenantId,
    },
    { now: user.createdAt },
  );
}
