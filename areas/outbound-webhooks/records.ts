import { randomBytes } from 'node:crypto';
import type { TransactItem } from '#shared/data/commit.ts';
import { keys, type Key } from '#shared/data/keys.ts';
import { config } from '#shared/platform/config.ts';

/**
 * Outbound webhooks' records (docs/decisions/outbound-webhooks.md):
 * - a subscription is a tenant item `{t}#WEBHOOK_SUBSCRIPTION` / id, listed newest first on gsi1,
 *   its collection counter doubling as the per-tenant limit;
 * - its delivery log lives below it, `{t}#WEBHOOK_SUBSCRIPTION#{id}#DELIVERY` / deliveryId, listed
 *   newest first on gsi1 with a counter of its own.
 */
export const EVENT_TYPES = [
  'conversation.escalated',
  'conversation.closed',
  'message.created',
  'document.indexed',
  'document.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** Sent by the test route only; no subscription names it. */
export const TEST_EVENT = 'webhook.test';

export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * The wait before each retry, in seconds: attempt n failed, the next comes BACKOFF[n - 1] later. Within
 * SQS's 15-minute delay, so each retry is one delayed message; six attempts over about 36 minutes.
 */
export const BACKOFF_SECONDS = [10, 60, 300, 900, 900] as const;
/** The retry limit, which also bounds a delivery's attempt log. */
export const MAX_ATTEMPTS = BACKOFF_SECONDS.length + 1;

/** Subscriptions per tenant: each event fans out to each, so the bound is the work per event. */
export const MAX_SUBSCRIPTIONS = 20;

export const subscriptionKey = (tenantId: string, id: string): Key =>
  keys.tenantItem(tenantId, 'WEBHOOK_SUBSCRIPTION', id);
export const subscriptionList = (tenantId: string) => keys.tenantCollection(tenantId, 'WEBHOOK_SUBSCRIPTION');
export const deliveryList = (tenantId: string, subscriptionId: string) =>
  keys.childCollection(tenantId, 'WEBHOOK_SUBSCRIPTION', subscriptionId, 'DELIVERY');
export const deliveryKey = (tenantId: string, subscriptionId: string, id: string): Key =>
  keys.childItem(tenantId, 'WEBHOOK_SUBSCRIPTION', subscriptionId, 'DELIVERY', id);
/** How many test deliveries of a subscription are in flight (test-limits.ts). */
export const testsInFlightKey = (tenantId: string, subscriptionId: string): Key =>
  keys.childItem(tenantId, 'WEBHOOK_SUBSCRIPTION', subscriptionId, 'TESTS_IN_FLIGHT', 'count');

export interface SubscriptionRecord {
  id: string;
  tenantId: string;
  url: string;
  eventTypes: EventType[];
  description: string | null;
  isActive: boolean;
  /** The Standard Webhooks signing secret (`whsec_` + base64 of 24 random bytes); shown on create and rotate only. */
  secret: string;
  secretRotatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One try of a delivery, as the log shows it (Svix's and Stripe's attempt lists). */
export interface AttemptEntry {
  attempt: number;
  /** When the request started. */
  at: string;
  /** The receiver's HTTP status; null when it never answered or nothing was sent. */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface DeliveryRecord {
  id: string;
  tenantId: string;
  subscriptionId: string;
  /** The event's id: the `webhook-id` header, the same on every attempt (receivers de-duplicate on it). */
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  /** The receiver's last HTTP status (null: no answer, or refused before sending). */
  statusCode: number | null;
  lastError: string | null;
  nextRetryAt: string | null;
  /** Each attempt in order; at most MAX_ATTEMPTS (the retry limit), absent on entries logged before it was kept. */
  attemptLog?: AttemptEntry[];
  createdAt: string;
  updatedAt: string;
}

export const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export const subscriptionItem = (s: SubscriptionRecord) => ({
  ...subscriptionKey(s.tenantId, s.id),
  ...keys.newestFirst(subscriptionList(s.tenantId), s.createdAt, s.id),
  ...s,
});

export const deliveryItem = (d: DeliveryRecord) => ({
  ...deliveryKey(d.tenantId, d.subscriptionId, d.id),
  ...keys.newestFirst(deliveryList(d.tenantId, d.subscriptionId), d.createdAt, d.id),
  ...d,
});

/** The tenant's subscription counter moved by one, refused past the limit (a burst of creates cannot pass it). */
export function subscriptionSlot(tenantId: string, by: 1 | -1): TransactItem {
  return {
    Update: {
      TableName: config.tableName,
      Key: keys.counter(subscriptionList(tenantId)),
      UpdateExpression: 'ADD #count :by',
      ExpressionAttributeNames: { '#count': 'count' },
      ...(by > 0
        ? {
            ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
            ExpressionAttributeValues: { ':by': by, ':max': MAX_SUBSCRIPTIONS },
          }
        : { ExpressionAttributeValues: { ':by': by } }),
    },
  };
}

export const toSubscription = (s: SubscriptionRecord) => ({
  id: s.id,
  url: s.url,
  eventTypes: s.eventTypes,
  description: s.description,
  isActive: s.isActive,
  secretRotatedAt: s.secretRotatedAt,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});

export const toDelivery = (d: DeliveryRecord) => ({
  id: d.id,
  eventId: d.eventId,
  eventType: d.eventType,
  status: d.status,
  statusCode: d.statusCode,
  attempts: d.attempts,
  nextRetryAt: d.nextRetryAt,
  lastError: d.lastError,
  attemptLog: d.attemptLog ?? [],
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});
