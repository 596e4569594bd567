import { localRoutes } from '#shared/routes/local.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';

import { authorize, callbackPage, discovery, jwks, token } from './idp.ts';
import { checkoutPage, decline, pay, renew, webhookLog } from './payments.ts';

/** Local-only stand-ins for external providers (never deployed). */
export const handler = apiHandler(localRoutes, {
  'local.idp.discovery': async ({ params }) => discovery(params.idp),
  'local.idp.authorize': async ({ params, query }) => authorize(params.idp, query),
  'local.idp.token': async ({ params, rawBody, isBase64Encoded, headers }) =>
    token(params.idp, { rawBody, isBase64Encoded, headers }),
  'local.idp.jwks': async ({ params }) => jwks(params.idp),
  'local.oauth.callback': async ({ query }) => callbackPage(query),
  'local.checkout.page': async ({ params }) => checkoutPage(params.sessionId),
  'local.checkout.pay': async ({ params }) => await pay(params.sessionId),
  'local.checkout.decline': async ({ params }) => await decline(params.sessionId),
  'local.providerA.renew': async ({ params }) => await renew(params.subscriptionId, true),
  'local.providerA.failRenewal': async ({ params }) => await renew(params.subscriptionId, false),
  'local.webhooks.log': async () => await webhookLog(),
});
