import { recordsOf } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { kbKey, kbList } from './records.ts';

/** What other areas read of the tenant's bases (apart from the use cases, so their bundles take only these). */
/** Every base of the tenant with its chunk count (strongly consistent: a tool's kbStatus is computed from it). */
export const baseChunkCounts = (tenantId: string) =>
  recordsOf<{ id: string; chunkCount?: number }>(kbList(tenantId), 'id, chunkCount');

/** Which of these ids name bases of the tenant (one GetItem each, as many as an agent or a test case names). */
export async function existingBases(tenantId: string, ids: readonly string[]): Promise<Set<string>> {
  const found = await Promise.all(ids.map((id) => get(kbKey(tenantId, id))));
  return new Set(ids.filter((_, i) => found[i]));
}
