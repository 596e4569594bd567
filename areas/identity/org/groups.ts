import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '#shared/auth/access-token.ts';
import { auditPut, countAudit } from '#shared/data/audit.ts';
import { bumpCounter, claimUnique, getItem, listNewestFirst, putNew } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { transact } from '#shared/data/transact.ts';
import { conflict, notFound } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { countIntegrationEvents, integrationEventPut } from '#areas/identity/integration-events.ts';
import {
  getGroup,
  groupCollection,
  groupKey,
  groupNameKey,
  membershipItem,
  toGroup,
  type GroupRecord,
} from '#areas/identity/groups.ts';
import { addToCount } from '#areas/identity/org-counters.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';

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
  const collection = groupCollection(tenantId);
  const outcome = await transact([
    claimUnique(groupNameKey(tenantId, group.name), { groupId: group.id }),
    putNew({
      ...groupKey(tenantId, group.id),
      ...keys.newestFirst(collection, group.createdAt, group.id),
      ...group,
      searchText: [group.name, group.description].filter(Boolean).join(' ').toLowerCase(),
    }),
    bumpCounter(collection, 1),
    auditPut(
      {
        entityType: 'Group',
        entityId: group.id,
        action: 'create',
        changes: { name: group.name, description: group.description },
        actor,
        tenantId,
      },
      group.createdAt,
    ),
  ]);
  if (!outcome.ok) throw conflict(`A group named '${group.name}' already exists`);
  await countAudit(1);
  return group;
}

export async function listGroups(tenantId: string, q: { page: number; pageSize: number; search?: string }) {
  const { items, totalCount } = await listNewestFirst(groupCollection(tenantId), q);
  return toPage(items.map(toGroup), totalCount, q.page, q.pageSize);
}

const readGroup = async (tenantId: string, groupId: string) => {
  const out = await ddb().send(
    new GetCommand({ TableName: config.tableName, Key: groupKey(tenantId, groupId), ConsistentRead: true }),
  );
  return out.Item ? toGroup(out.Item) : undefined;
};

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
  const [group, user] = await Promise.all([
    getGroup(tenantId, groupId),
    getItem(keys.user(tenantId, userId.toLowerCase())),
  ]);
  if (!group) throw notFound('Group');
  if (!user) throw notFound('User');
  const memberId = userId.toLowerCase();
  const now = new Date().toISOString();
  const outcome = await transact([
    {
      Put: {
        TableName: config.tableName,
        Item: membershipItem(tenantId, group, memberId, now),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    addToCount(groupKey(tenantId, group.id), 'memberCount', 1),
    {
      ConditionCheck: {
        TableName: config.tableName,
        Key: keys.user(tenantId, memberId),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    auditPut(
      { entityType: 'Group', entityId: group.id, action: 'add-member', changes: { userId: memberId }, actor, tenantId },
      now,
    ),
    integrationEventPut('group.member-added', { tenantId, groupId: group.id, userId: memberId }, now),
  ]);
  if (!outcome.ok) {
    if (outcome.failedAt.includes(1)) throw notFound('Group');
    if (outcome.failedAt.includes(2)) throw notFound('User');
  } else {
    await Promise.all([countAudit(1), countIntegrationEvents(1)]);
  }
  return (await readGroup(tenantId, group.id)) ?? group;
}
