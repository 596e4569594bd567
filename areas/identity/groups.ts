import { getItem } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';

export interface GroupRecord {
  id: string;
  name: string;
  tenantId: string;
  description: string | null;
  memberCount: number;
  createdAt: string;
}

export const groupKey = (tenantId: string, id: string) => keys.tenantItem(tenantId, 'GROUP', id);
export const groupCollection = (tenantId: string) => keys.tenantCollection(tenantId, 'GROUP');
export const groupNameKey = (tenantId: string, name: string) => keys.unique('GROUP_NAME', name.toLowerCase(), tenantId);

export const toGroup = (item: Record<string, unknown>): GroupRecord => ({
  id: item.id as string,
  name: item.name as string,
  tenantId: item.tenantId as string,
  description: (item.description as string | null) ?? null,
  memberCount: Math.max(0, Number(item.memberCount ?? 0)),
  createdAt: item.createdAt as string,
});

export async function getGroup(tenantId: string, id: string): Promise<GroupRecord | undefined> {
  const item = await getItem(groupKey(tenantId, id.toLowerCase()));
  return item ? toGroup(item) : undefined;
}

/**
 * The membership item: addressed under the group, and on gsi2 under the user (sorted by group
 * name) so a user's groups are one Query. It carries the group's name for that listing; group
 * names cannot change today, and a rename must rewrite these items.
 */
export function membershipItem(tenantId: string, group: { id: string; name: string }, userId: string, now: string) {
  return {
    ...keys.groupMember(tenantId, group.id, userId),
    gsi2pk: keys.userGroups(tenantId, userId),
    gsi2sk: `${group.name.toLowerCase()}#${group.id}`,
    tenantId,
    groupId: group.id,
    groupName: group.name,
    userId,
    createdAt: now,
  };
}
