import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { outboundWebhookRoutes } from '#areas/outbound-webhooks/routes.ts';
import {
  createSubscription,
  deleteSubscription,
  getDelivery,
  getSubscription,
  listDeliveries,
  listSubscriptions,
  rotateSecret,
  sendTest,
  updateSubscription,
} from '#areas/outbound-webhooks/subscriptions.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';

/** Wiring only: the logic is areas/outbound-webhooks (billing's inbound provider webhooks are `webhooks`). */
export const handler = apiHandler(
  outboundWebhookRoutes,
  {
    'webhookSubscriptions.create': ({ tenantId, body, principal }) => createSubscription(tenantId, body, principal),
    'webhookSubscriptions.list': ({ tenantId, query }) => listSubscriptions(tenantId, query),
    'webhookSubscriptions.get': ({ tenantId, params }) => getSubscription(tenantId, params.webhookSubscriptionId),
    'webhookSubscriptions.update': ({ tenantId, params, body, principal }) =>
      updateSubscription(tenantId, params.webhookSubscriptionId, body, principal),
    'webhookSubscriptions.delete': ({ tenantId, params, principal }) =>
      deleteSubscription(tenantId, params.webhookSubscriptionId, principal),
    'webhookSubscriptions.test': ({ tenantId, params, principal }) =>
      sendTest(tenantId, params.webhookSubscriptionId, principal),
    'webhookSubscriptions.rotateSecret': ({ tenantId, params, principal }) =>
      rotateSecret(tenantId, params.webhookSubscriptionId, principal),
    'webhookSubscriptions.deliveries': ({ tenantId, params, query }) =>
      listDeliveries(tenantId, params.webhookSubscriptionId, query),
    'webhookSubscriptions.delivery': ({ tenantId, params }) =>
      getDelivery(tenantId, params.webhookSubscriptionId, params.deliveryId),
  },
  { tenants: tenantDirectory },
);
