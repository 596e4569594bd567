import * as z from 'zod/mini';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { optionalText, pageOf, paging, uuid } from '#shared/routes/schemas.ts';
import { subscriptionLimitReached, targetNotAllowed } from './errors.ts';
import { DELIVERY_STATUSES, EVENT_TYPES, MAX_ATTEMPTS, TEST_EVENT } from './records.ts';
import { MAX_TESTS_IN_FLIGHT, TEST_LIMITS } from './test-limits.ts';

/**
 * Outbound webhooks (beyond the spec, which leaves delivery of events to external subscribers open):
 * a tenant subscribes URLs to event types; deliveries are signed per Standard Webhooks and retried.
 * Reading needs `ai:read`, changing `ai:manage` (the AI runtime's settings, TenantOwner by default).
 */
const read = { kind: 'bearer', permission: 'ai:read' } as const;
const manage = { kind: 'bearer', permission: 'ai:manage' } as const;
const BASE = '/api/webhook-subscriptions';
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));
const ofSubscription = scope.tenant({
  tenantFrom: 'query',
  record: { param: 'webhookSubscriptionId', collection: 'WEBHOOK_SUBSCRIPTION', label: 'Webhook subscription' },
});
const byId = once(() => ({ params: z.object({ webhookSubscriptionId: uuid() }), query: z.object(tenantQuery()) }));

const input = once(() =>
  z.object({
    url: z.string().check(z.trim(), z.minLength(1), z.maxLength(2000)),
    eventTypes: z.array(z.enum(EVENT_TYPES)).check(z.minLength(1), z.maxLength(EVENT_TYPES.length * 2)),
    description: optionalText(500),
    isActive: z.optional(z.boolean()),
  }),
);
const subscription = once(() =>
  z.object({
    id: z.string(),
    url: z.string(),
    eventTypes: z.array(z.enum(EVENT_TYPES)),
    description: z.nullable(z.string()),
    isActive: z.boolean(),
    secretRotatedAt: z.nullable(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
const withSecret = once(() => z.object({ ...subscription().shape, secret: z.string() }));
const attemptEntry = once(() =>
  z.object({
    attempt: z.number(),
    at: z.string().check(z.meta({ description: 'When the request started' })),
    statusCode: z.nullable(
      z
        .number()
        .check(z.meta({ description: "The receiver's HTTP status; null when it did not answer or nothing was sent" })),
    ),
    error: z.nullable(z.string()),
    durationMs: z.number(),
  }),
);
const delivery = once(() =>
  z.object({
    id: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    statusCode: z.nullable(z.number()),
    attempts: z.number(),
    nextRetryAt: z.nullable(z.string()),
    lastError: z.nullable(z.string()),
    attemptLog: z
      .array(attemptEntry())
      .check(
        z.maxLength(MAX_ATTEMPTS),
        z.meta({ description: `Each attempt in order, at most ${MAX_ATTEMPTS} (the retry limit)` }),
      ),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);

export const outboundWebhookRoutes = defineRoutes([
  {
    group: 'webhook-subscriptions',
    id: 'webhookSubscriptions.create',
    method: 'POST',
    path: BASE,
    auth: manage,
    scope: scope.tenant({ tenantFrom: 'query' }),
    summary: `Subscribes an https URL to event types (${EVENT_TYPES.join(', ')}); the answer carries the signing \`secret\` (\`whsec_...\`), shown only here and on rotation. Private, loopback and reserved addresses are refused (400 TARGET_NOT_ALLOWED); at most 20 per tenant`,
    status: 201,
    errors: [targetNotAllowed, subscriptionLimitReached],
    schemas: () => ({ query: z.object(tenantQuery()), body: input(), response: withSecret() }),
  },
  {
    group: 'webhook-subscriptions',
    id: 'webhookSubscriptions.list',
    method: 'GET',
    path: BASE,
    auth: read,
    scope: scope.tenant({ tenantFrom: 'query' }),
    summary: "The tenant's webhook subscriptions, newest first (never their secrets)",
    status: 200,
    schemas: () => ({ query: z.object({ ...paging(), ...tenantQuery() }), response: pageOf(subscription()) }),
  },
  {
    group: 'webhook-subscriptions',
    id: 'webhookSubscriptions.get',
    method: 'GET',
    path: `${BASE}/{webhookSubscriptionId}`,
    auth: read,
    scope: ofSubscription,
    summary: 'A webhook subscription (never its secret)',
    status: 200,
    schemas: () => ({ ...byId(), response: subscription() }),
  },
  {
    group: 'webhook-subscriptions',
    id: 'webhookSubscriptions.update',
    method: 'PUT',
    path: `${BASE}/{webhookSubscriptionId}`,
    auth: manage,
    scope: ofSubscription,
    summary: 'Replaces the URL, event types, description and (when given) the active flag; the secret stays',
    status: 200,
    errors: [targetNotAllowed],
    schemas: () => ({ ...byId(), body: input(), response: subscription() }),
  },
  {
    group: 'webhook-subscriptions',
    id: 'webhookSubscriptions.delete',
    method: 'DELETE',
    path: `${BASE}/{webhookSubscriptionId}`,
    auth: manage,
    scope: ofSubscription,
    summary: 'Removes the subscription; deliveries still queued for it stop',
    status: 204,
    schemas: () => ({ ...byId() }),
  },
  {
    group: 'webhook-subscriptions',
    id: 'webhookSubscriptions.test',
    method: 'POST',
    path: `${BASE}/{webhookSubscriptionId}/test`,
    auth: manage,
    scope: ofSubscription,
    summary:
      `Queues a \`${TEST_EVENT}\` event to this subscription (even while inactive); it shows in the delivery log. ` +
      `At most ${TEST_LIMITS.perSubscription.limit} tests per subscription and ${TEST_LIMITS.perTenant.limit} per tenant ` +
      `each ${TEST_LIMITS.perTenant.windowSeconds} s, and ${MAX_TESTS_IN_FLIGHT} test deliveries of a subscription in flight ` +
      '(not yet delivered or given up); over any of them, 429 RATE_LIMITED with Retry-After',
    status: 202,
    schemas: () => ({ ...byId(), response: z.object({ eventId: z.string(), eventType: z.string() }) }),
  },
  {
    group: 'webhook-subscriptions',
    id: 'webhookSubscriptions.rotateSecret',
    method: 'POST',
    path: `${BASE}/{webhookSubscriptionId}/rotate-secret`,
    auth: manage,
    scope: ofSubscription,
    summary:
      'A new signing secret, shown only in this answer; deliveries from now on are signed with it and the old one stops verifying',
    status: 200,
    schemas: () => ({ ...byId(), response: withSecret() }),
  },
  {
    group: 'webhook-subscriptions',
    id: 'webhookSubscriptions.deliveries',
    method: 'GET',
    path: `${BASE}/{webhookSubscriptionId}/deliveries`,
    auth: read,
    scope: ofSubscription,
    summary:
      "The subscription's delivery log, newest first: event type, status (pending, retrying, succeeded, failed), the receiver's last status code, attempts and the next retry, and each attempt (time, status code, error, duration)",
    status: 200,
    schemas: () => ({
      params: byId().params,
      query: z.object({ ...paging(), ...tenantQuery() }),
      response: pageOf(delivery()),
    }),
  },
  {
    group: 'webhook-subscriptions',
    id: 'webhookSubscriptions.delivery',
    method: 'GET',
    path: `${BASE}/{webhookSubscriptionId}/deliveries/{deliveryId}`,
    auth: read,
    scope: ofSubscription,
    summary: 'One delivery of the log, with each of its attempts (time, status code, error, duration)',
    status: 200,
    schemas: () => ({
      params: z.object({ webhookSubscriptionId: uuid(), deliveryId: uuid() }),
      query: z.object(tenantQuery()),
      response: delivery(),
    }),
  },
]);
