import { getMany } from '#shared/data/read.ts';
import { keyId } from '#shared/data/keys.ts';
import { tools, type ToolItem } from './records.ts';

/** The tenant's tools by id, in the order asked, absent ones left out (one BatchGetItem). */
export async function readTools(tenantId: string, ids: readonly string[]): Promise<ToolItem[]> {
  const ks = ids.map((id) => tools.key(tenantId, id));
  const found = await getMany<ToolItem>(ks);
  return ks.flatMap((k) => {
    const t = found.get(keyId(k));
    return t && t.tenantId === tenantId ? [t] : [];
  });
}

/** The ids among these that name ACTIVE, live tools of the tenant. */
export const activeToolIds = async (tenantId: string, ids: readonly string[]) =>
  new Set((await readTools(tenantId, ids)).filter((t) => t.status === 'ACTIVE' && !t.deletedAt).map((t) => t.id));
