import { queryItems } from '#shared/data/query.ts';
import { config } from '#shared/platform/config.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { logger } from '#shared/runtime/logger.ts';
import { DELIVERY_ATTEMPT, type OutboundEvent } from './messages.ts';
import { MAX_SUBSCRIPTIONS, subscriptionList, type EventType, type SubscriptionRecord } from './records.ts';

/** The first attempt of one event to one subscription; the worker writes its log entry. */
export const queueDelivery = (tenantId: string, subscriptionId: string, event: OutboundEvent) =>
  enqueue(
    DELIVERY_ATTEMPT,
    { tenantId, subscriptionId, deliveryId: crypto.randomUUID(), attempt: 1, event },
    { id: `delivery:${event.id}:${subscriptionId}:1` },
  );

/**
 * Tells the tenant's subscribers of these events: one Query of its subscriptions (at most 20), then
 * one queued delivery per event and active subscription that names its type; nothing queued when
 * none does. Runs after the change it reports was committed; a failure is logged and never fails
 * that change.
 */
export async function publishEvents(tenantId: string, events: { type: EventType; data: Record<string, unknown> }[]) {
  if (!events.length) return;
  try {
    const subscriptions = await queryItems<Pick<SubscriptionRecord, 'id' | 'eventTypes' | 'isActive'>>(
      {
        TableName: config.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': subscriptionList(tenantId) },
        ExpressionAttributeNames: { '#id': 'id', '#types': 'eventTypes', '#active': 'isActive' },
        ProjectionExpression: '#id, #types, #active',
      },
      MAX_SUBSCRIPTIONS,
    );
    const sends: Promise<unknown>[] = [];
    for (const { type, data } of events) {
      const targets = subscriptions.filter((s) => s.isActive && s.eventTypes?.includes(type));
      if (!targets.length) continue;
      const event: OutboundEvent = {
        id: `evt_${crypto.randomUUID()}`,
        type,
        timestamp: new Date().toISOString(),
        data,
      };
      for (const s of targets) sends.push(queueDelivery(tenantId, s.id, event));
    }
    await Promise.all(sends);
  } catch (err) {
    logger.error('webhook events not published', { tenantId, types: events.map((e) => e.type), error: err as Error });
  }
}

export const publishEvent = (tenantId: string, type: EventType, data: Record<string, unknown>) =>
  publishEvents(tenantId, [{ type, data }]);
