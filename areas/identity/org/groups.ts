import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { checkItem, commitChange, orConflict, putNew } from '#shared/data/commit.ts';
import { conflict, notFound } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { getGroup } from '#areas/identity/group-lookup.ts';
import { countIntegrationEvents, integrationEventPut } from '#shared/data/integration-events.ts';
import { addToCount } from '#areas/identity/org-counters.ts';
import { groupItem, identityKeys, membershipItem, toGroup, type GroupRecord } from '#areas/identity/records.ts';
import { getUser } from '#areas/identity/user-accounts.ts';
import { committedUnless } from '#shared/data/write-one.ts';

export interface NewGroup {
  name: string;
  description?: string | null;
}

export async function createGroup(tenantId: string, input: NewGroup, actor: Principal): Promise<GroupRecord> {
  const group: GroupRecord = {
    id: crypto.randomUUID(),
    name: input.name,
    tenantId,
    description: input.description || null,
    memberCount: 0,
    createdAt: new Date().toISOString(),
  };
  await commitChange(
    [
      orConflict(
        putNew({ ...identityKeys.groupName(tenantId, group.name), groupId: group.id }),
        `A group named '${group.name}' already exists`,
      ),
      putNew(groupItem(group)),
      bumpCounter(identityKeys.groups(tenantId), 1),
    ],
    {
      entityType: 'Group',
      entityId: group.id,
      action: 'create',
      changes: { name: group.name, description: group.description },
      actor,
      tenantId,
    },
    { now: group.createdAt },
  );
  return group;
}

export async function listGroups(tenantId: string, q: { page: number; pageSize: number; search?: string }) {
  const { items, totalCount } = await listNewestFirst(identityKeys.groups(tenantId), q);
  return toPage(items.map(toGroup), totalCount, q.page, q.pageSize);
}

/**
 * Adds a user of the same tenant to a group. The membership put is conditional and shares a
 * transaction with the memberCount ADD and a check that the user still exists, so a repeated or
 * concurrent add of the same user counts once: its condition failure means "already a member",
 * which answers 200 with the group and writes nothing (no audit entry or integration event either).
 */
export async function addUserToGroup(
  tenantId: string,
  groupId: string,
  userId: string,
  actor: Principal,
): Promise<GroupRecord> {
  const [group, user] = await Promise.all([getGroup(tenantId, groupId), getUser(tenantId, userId)]);
  if (!group) throw notFound('Group');
  if (!user) throw notFound('User');
  const now = new Date().toISOString();
  const member = conflict('The user is a member of the group already');
  // The group and the user are checked before the membership, so their 404s win over "already a member".
  const alreadyMember = await committedUnless(
    commitChange(
      [
        orConflict(addToCount(identityKeys.group(tenantId, group.id), 'memberCount', 1), notFound('Group')),
        orConflict(checkItem(identityKeys.user(tenantId, userId), 'attribute_exists(pk)'), notFound('User')),
        orConflict(putNew(membershipItem(tenantId, group, userId, now)), member),
        integrationEventPut('group.member-added', { tenantId, groupId: group.id, userId }, now),
      ],
      { entityType: 'Group', entityId: group.id, action: 'add-member', changes: { userId }, actor, tenantId },
      { now },
    ),
    member,
  );
  if (!alreadyMember) await countIntegrationEvents(1);
  return (await getGroup(tenantId, group.id, true)) ?? group;
}
