import { bumpCounterAfterCommit } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import type { TransactItem } from '#shared/data/commit.ts';
import { config } from '#shared/platform/config.ts';

/** Integration events, newest first (the admin area lists them). */
export const integrationEvents = () => keys.platformCollection('INTEGRATION_EVENT');

export type IntegrationEventType = 'user.registered' | (string & {});

/**
 * An integration event record, as a transaction item written with the change it reports, so an
 * event exists exactly when its change does. The admin area lists them newest first.
 */
export function integrationEventPut(
  eventType: IntegrationEventType,
  data: Record<string, unknown>,
  now = new Date().toISOString(),
): TransactItem {
  const id = crypto.randomUUID();
  const collection = integrationEvents();
  return {
    Put: {
      TableName: config.tableName,
      Item: {
        ...keys.platformItem('INTEGRATION_EVENT', id),
        ...keys.newestFirst(collection, now, id),
        id,
        eventType,
        data: JSON.stringify(data),
        status: 'recorded',
        createdAt: now,
      },
    },
  };
}

/** Bumped after the transaction (like the audit counter) so registrations do not contend on one item. */
export const countIntegrationEvents = (n: number) => bumpCounterAfterCommit(integrationEvents(), n);
