import { listNewestFirst } from '#shared/data/collection.ts';
import { toPage } from '#shared/http/responses.ts';
import { adminKeys, toIntegrationEvent } from './records.ts';

/** Newest first; totalCount is the collection's maintained counter. */
export async function listIntegrationEvents(q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst(adminKeys.integrationEvents(), q);
  return toPage(items.map(toIntegrationEvent), totalCount, q.page, q.pageSize);
}
