import { auditPut, countAudit } from '#shared/data/audit.ts';
import { bumpCounter, claimUnique, getItem, putNew } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { transact } from '#shared/data/transact.ts';
import { badRequest } from '#shared/http/errors.ts';
import type { Principal } from '#shared/auth/access-token.ts';

export interface UserRecord {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  phoneNumber: string | null;
  roles: string[];
  tenantId: string | null;
  isActive: boolean;
  isEmailVerified: boolean;
  avatarUrl: string | null;
  departmentId: string | null;
  passwordHash: string | null;
  createdAt: string;
}

/** E-mail addresses are compared trimmed and lower-cased everywhere. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export interface EmailOwner {
  userId: string;
  tenantId: string | null;
}

export async function findUserByEmail(email: string): Promise<UserRecord | undefined> {
  const owner = await getItem<EmailOwner>(keys.unique('EMAIL', normalizeEmail(email)));
  if (!owner) return undefined;
  return getItem<UserRecord>(keys.user(owner.tenantId ?? null, owner.userId));
}

export const getUser = (tenantId: string | null, userId: string) => getItem<UserRecord>(keys.user(tenantId, userId));

/**
 * Creates a user and claims its e-mail in one transaction, so two concurrent registrations of
 * one address give exactly one user; the loser gets 400 DUPLICATE_EMAIL.
 */
export async function createUser(
  user: UserRecord,
  actor: Pick<Principal, 'userId' | 'email'> | null,
  extra: Parameters<typeof transact>[0] = [],
) {
  const email = normalizeEmail(user.email);
  const collection = keys.userCollection(user.tenantId);
  const searchText = `${user.firstName} ${user.lastName} ${email}`.toLowerCase();
  const outcome = await transact([
    claimUnique(keys.unique('EMAIL', email), { userId: user.id, tenantId: user.tenantId }),
    putNew({
      ...keys.user(user.tenantId, user.id),
      ...keys.newestFirst(collection, user.createdAt, user.id),
      ...user,
      email,
      searchText,
    }),
    bumpCounter(collection, 1),
    auditPut({
      entityType: 'User',
      entityId: user.id,
      action: 'create',
      changes: { email, firstName: user.firstName, lastName: user.lastName, roles: user.roles },
      actor: actor ?? { userId: user.id, email },
      tenantId: user.tenantId,
    }),
    ...extra,
  ]);
  if (!outcome.ok) {
    if (outcome.failedAt.includes(0)) throw badRequest('DUPLICATE_EMAIL', 'An account with this e-mail already exists');
    return outcome;
  }
  await countAudit(1);
  return outcome;
}
