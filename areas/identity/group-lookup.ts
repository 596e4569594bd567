import { get } from '#shared/data/read.ts';
import { identityKeys, toGroup, type GroupRecord } from './records.ts';

export type { GroupRecord };

/** A group of the tenant; strongly consistent when the caller is about to decide a write on it. */
export async function getGroup(
  tenantId: string,
  groupId: string,
  consistent = false,
): Promise<GroupRecord | undefined> {
  const item = await get(identityKeys.group(tenantId, groupId), { consistent });
  return item ? toGroup(item) : undefined;
}
