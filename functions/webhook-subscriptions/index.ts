import { outboundWebhookRoutes } from '#areas/outbound-webhooks/routes.ts';
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  listDeliveries,
  listSubscriptions,
  rotateSecret,
  sendTest,
  updateSubscription,
} from '#areas/outbound-webhooks/subscriptions.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';

/** Wiring only: the logic is areas/outbound-webhooks (billing's inbound provider webhooks are `webhooks`). */
export const handler = apiHandler(outboundWebhookRoutes, {
  'webhookSubscriptions.create': ({ tenantId, body, principal }) => createSubscription(tenantId, body, principal),
  'webhookSubscriptions.list': ({ tenantId, query }) => listSubscriptions(tenantId, query),
  'webhookSubscriptions.get': ({ tenantId, params }) => getSubscription(tenantId, params.subscriptionId),
  'webhookSubscriptions.update': ({ tenantId, params, body, principal }) =>
    updateSubscription(tenantId, params.subscriptionId, body, principal),
  'webhookSubscriptions.delete': ({ tenantId, params, principal }) =>
    deleteSubscription(tenantId, params.subscriptionId, principal),
  'webhookSubscriptions.test': ({ tenantId, params, principal }) =>
    sendTest(tenantId, params.subscriptionId, principal),
  'webhookSubscriptions.rotateSecret': ({ tenantId, params, principal }) =>
    rotateSecret(tenantId, params.subscriptionId, principal),
  'webhookSubscriptions.deliveries': ({ tenantId, params, query }) =>
    listDeliveries(tenantId, params.subscriptionId, query),
});
