import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, deleteItem, orConflict, putItem, putNew, type Change } from '#shared/data/commit.ts';
import { getOr404 } from '#shared/data/read.ts';
import { toPage } from '#shared/http/responses.ts';
import { subscriptionLimitReached } from './errors.ts';
import { queueDelivery } from './publish.ts';
import {
  deliveryKey,
  deliveryList,
  newSecret,
  subscriptionItem,
  subscriptionKey,
  subscriptionList,
  subscriptionSlot,
  TEST_EVENT,
  toDelivery,
  toSubscription,
  type DeliveryRecord,
  type EventType,
  type SubscriptionRecord,
} from './records.ts';
import { checkTarget } from './target.ts';
import { admitTest } from './test-limits.ts';

type Stored = SubscriptionRecord & { revision: number };

export interface SubscriptionInput {
  url: string;
  eventTypes: EventType[];
  description?: string | null;
  isActive?: boolean;
}

const change = (
  tenantId: string,
  id: string,
  actor: Principal,
  action: string,
  changes: Change['changes'],
): Change => ({
  tenantId,
  actor,
  entityType: 'WebhookSubscription',
  entityId: id,
  action,
  changes,
});

const read = (tenantId: string, id: string, consistent = false) =>
  getOr404<Stored>(subscriptionKey(tenantId, id), 'Webhook subscription', { consistent });

const unique = (types: EventType[]) => [...new Set(types)];

/** A new subscription with its signing secret, shown in this answer only (the audit entry never has it). */
export async function createSubscription(tenantId: string, body: SubscriptionInput, actor: Principal) {
  const url = await checkTarget(body.url);
  const now = new Date().toISOString();
  const sub: SubscriptionRecord = {
    id: crypto.randomUUID(),
    tenantId,
    url,
    eventTypes: unique(body.eventTypes),
    description: body.description ?? null,
    isActive: body.isActive ?? true,
    secret: newSecret(),
    secretRotatedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await commitChange(
    [
      putNew({ ...subscriptionItem(sub), revision: 1 }),
      orConflict(subscriptionSlot(tenantId, 1), subscriptionLimitReached()),
    ],
    change(tenantId, sub.id, actor, 'WebhookSubscriptionCreated', {
      url,
      eventTypes: sub.eventTypes,
      description: sub.description,
      isActive: sub.isActive,
    }),
  );
  return { ...toSubscription(sub), secret: sub.secret };
}

export async function listSubscriptions(tenantId: string, q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst<SubscriptionRecord>(subscriptionList(tenantId), q);
  return toPage(items.map(toSubscription), totalCount, q.page, q.pageSize);
}

export async function getSubscription(tenantId: string, id: string) {
  return toSubscription(await read(tenantId, id));
}

/** Replaces URL, event types, description and the active flag, under the revision it read. */
export async function updateSubscription(tenantId: string, id: string, body: SubscriptionInput, actor: Principal) {
  const current = await read(tenantId, id, true);
  const url = await checkTarget(body.url);
  const next: Stored = {
    ...current,
    url,
    eventTypes: unique(body.eventTypes),
    description: body.description ?? null,
    isActive: body.isActive ?? current.isActive,
    updatedAt: new Date().toISOString(),
    revision: current.revision + 1,
  };
  const changed = Object.fromEntries(
    (['url', 'eventTypes', 'description', 'isActive'] as const)
      .filter((k) => JSON.stringify(current[k]) !== JSON.stringify(next[k]))
      .map((k) => [k, { from: current[k], to: next[k] }]),
  );
  await commitChange(
    [putItem(subscriptionItem(next), 'revision = :revision', { ':revision': current.revision })],
    change(tenantId, id, actor, 'WebhookSubscriptionUpdated', changed),
    { onConflict: 'The subscription changed meanwhile; try again' },
  );
  return toSubscription(next);
}

/** A new secret at once: deliveries from now on are signed with it, the old one no longer verifies. */
export async function rotateSecret(tenantId: string, id: string, actor: Principal) {
  const current = await read(tenantId, id, true);
  const now = new Date().toISOString();
  const next: Stored = {
    ...current,
    secret: newSecret(),
    secretRotatedAt: now,
    updatedAt: now,
    revision: current.revision + 1,
  };
  await commitChange(
    [putItem(subscriptionItem(next), 'revision = :revision', { ':revision': current.revision })],
    change(tenantId, id, actor, 'WebhookSubscriptionSecretRotated', { secretRotatedAt: now }),
    { onConflict: 'The subscription changed meanwhile; try again' },
  );
  return { ...toSubscription(next), secret: next.secret };
}

/** Removes the subscription: deliveries queued for it find it gone and stop. Its log stays unreachable. */
export async function deleteSubscription(tenantId: string, id: string, actor: Principal) {
  const current = await read(tenantId, id, true);
  await commitChange(
    [deleteItem(subscriptionKey(tenantId, id), 'attribute_exists(pk)'), bumpCounter(subscriptionList(tenantId), -1)],
    change(tenantId, id, actor, 'WebhookSubscriptionDeleted', { url: current.url }),
    { onConflict: 'The subscription was deleted meanwhile' },
  );
}

/** Queues a `webhook.test` event to this subscription alone (sent even while it is inactive). */
export async function sendTest(tenantId: string, id: string, actor: Principal) {
  await read(tenantId, id);
  await admitTest(tenantId, id);
  const event = {
    id: `evt_${crypto.randomUUID()}`,
    type: TEST_EVENT,
    timestamp: new Date().toISOString(),
    data: { subscriptionId: id, message: 'A test event from the platform' },
  };
  await commitChange([], change(tenantId, id, actor, 'WebhookSubscriptionTested', { eventId: event.id }));
  await queueDelivery(tenantId, id, event);
  return { eventId: event.id, eventType: TEST_EVENT };
}

export async function listDeliveries(tenantId: string, id: string, q: { page: number; pageSize: number }) {
  await read(tenantId, id);
  const { items, totalCount } = await listNewestFirst<DeliveryRecord>(deliveryList(tenantId, id), q);
  return toPage(items.map(toDelivery), totalCount, q.page, q.pageSize);
}

export async function getDelivery(tenantId: string, id: string, deliveryId: string) {
  await read(tenantId, id);
  return toDelivery(await getOr404<DeliveryRecord>(deliveryKey(tenantId, id, deliveryId), 'Delivery'));
}
