import { listNewestFirst } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { toPage } from '#shared/http/responses.ts';

export interface IntegrationEvent {
  id: string;
  eventType: string;
  data: string | null;
  status: string;
  createdAt: string;
}

const toEvent = (item: Record<string, unknown>): IntegrationEvent => ({
  id: item.id as string,
  eventType: item.eventType as string,
  data: item.data == null ? null : typeof item.data === 'string' ? item.data : JSON.stringify(item.data),
  status: String(item.status ?? 'pending'),
  createdAt: item.createdAt as string,
});

/** Newest first; totalCount is the collection's maintained counter. */
export async function listIntegrationEvents(q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst(keys.platformCollection('INTEGRATION_EVENT'), q);
  return toPage(items.map(toEvent), totalCount, q.page, q.pageSize);
}
