import * as z from 'zod/mini';
import { defineRoutes, once, scope } from './types.ts';
import { uuid } from './schemas.ts';

/** Routes served only by the local server (`localOnly`): stand-ins for external providers. */

const idpParams = once(() => z.object({ idp: z.enum(['a', 'b']) }));
const q = (max = 2048) => z.optional(z.string().check(z.maxLength(max)));
const none = { kind: 'none' } as const;
const sessionParams = once(() => z.object({ sessionId: uuid() }));
const subscriptionParams = once(() => z.object({ subscriptionId: uuid() }));
const delivery = once(() => z.object({ eventId: z.string(), responseStatus: z.number() }));

export const localRoutes = defineRoutes([
  {
    id: 'local.idp.discovery',
    method: 'GET',
    path: '/_local/idp/{idp}/.well-known/openid-configuration',
    group: 'local-providers',
    auth: none,
    scope: scope.public,
    summary: 'Local identity provider A or B: OpenID Connect discovery document',
    status: 200,
    rawResponse: { contentType: 'application/json' },
    localOnly: true,
    schemas: () => ({
      params: idpParams(),
    }),
  },
  {
    id: 'local.idp.authorize',
    method: 'GET',
    path: '/_local/idp/{idp}/authorize',
    group: 'local-providers',
    auth: none,
    scope: scope.public,
    summary:
      'Local identity provider: authorization endpoint. With `login_hint` (the test user e-mail; optional `email_verified`, `given_name`, `family_name`, `sub`) it consents at once and redirects (302) back with a code; without, it shows a sign-in form',
    status: 200,
    rawResponse: { contentType: 'text/html' },
    localOnly: true,
    schemas: () => ({
      params: idpParams(),
      query: z.object({
        response_type: q(40),
        client_id: q(200),
        redirect_uri: q(),
        scope: q(200),
        state: q(512),
        nonce: q(512),
        code_challenge: q(128),
        code_challenge_method: q(10),
        login_hint: q(254),
        email_verified: q(5),
        given_name: q(100),
        family_name: q(100),
        sub: q(200),
      }),
    }),
  },
  {
    id: 'local.idp.token',
    method: 'POST',
    path: '/_local/idp/{idp}/token',
    group: 'local-providers',
    auth: none,
    scope: scope.public,
    summary:
      'Local identity provider: token endpoint (form-encoded authorization_code grant, client_secret_basic or _post, PKCE S256)',
    status: 200,
    bodyType: 'raw',
    maxBodyBytes: 16 * 1024,
    rawResponse: { contentType: 'application/json' },
    localOnly: true,
    schemas: () => ({
      params: idpParams(),
    }),
  },
  {
    id: 'local.idp.jwks',
    method: 'GET',
    path: '/_local/idp/{idp}/jwks.json',
    group: 'local-providers',
    auth: none,
    scope: scope.public,
    summary: 'Local identity provider: public keys of its ID tokens',
    status: 200,
    rawResponse: { contentType: 'application/json' },
    localOnly: true,
    schemas: () => ({
      params: idpParams(),
    }),
  },
  {
    id: 'local.oauth.callback',
    method: 'GET',
    path: '/_local/oauth/callback',
    group: 'local-providers',
    auth: none,
    scope: scope.public,
    summary:
      'Stand-in for the web app page a provider redirects to: shows the code and state to post to the callback route',
    status: 200,
    rawResponse: { contentType: 'text/html' },
    localOnly: true,
    schemas: () => ({
      query: z.object({ code: q(), state: q(512), error: q(200) }),
    }),
  },
  {
    id: 'local.checkout.page',
    method: 'GET',
    path: '/_local/checkout/{sessionId}',
    group: 'local-providers',
    auth: none,
    scope: scope.public,
    summary: 'Local payment provider: hosted checkout page with Pay and Decline buttons',
    status: 200,
    rawResponse: { contentType: 'text/html' },
    localOnly: true,
    schemas: () => ({
      params: sessionParams(),
    }),
  },
  {
    id: 'local.checkout.pay',
    method: 'POST',
    path: '/_local/checkout/{sessionId}/pay',
    group: 'local-providers',
    auth: none,
    scope: scope.public,
    summary:
      'Local payment provider: pay the session; the provider sends its signed webhook to the API and answers with the delivery',
    status: 200,
    localOnly: true,
    schemas: () => ({
      params: sessionParams(),
      response: delivery(),
    }),
  },
  {
    id: 'local.checkout.decline',
    method: 'POST',
    path: '/_local/checkout/{sessionId}/decline',
    group: 'local-providers',
    auth: none,
    scope: scope.public,
    summary: 'Local payment provider: decline the session (the card is refused); the failure webhook goes to the API',
    status: 200,
    localOnly: true,
    schemas: () => ({
      params: sessionParams(),
      response: delivery(),
    }),
  },
  {
    id: 'local.providerA.renew',
    method: 'POST',
    path: '/_local/provider-a/subscriptions/{subscriptionId}/renew',
    group: 'local-providers',
    auth: none,
    scope: scope.public,
    summary: 'Local payment provider A: charge the next period of a subscription (invoice.payment_succeeded)',
    status: 200,
    localOnly: true,
    schemas: () => ({
      params: subscriptionParams(),
      response: delivery(),
    }),
  },
  {
    id: 'local.providerA.failRenewal',
    method: 'POST',
    path: '/_local/provider-a/subscriptions/{subscriptionId}/fail-renewal',
    group: 'local-providers',
    auth: none,
    scope: scope.public,
    summary: 'Local payment provider A: fail the next period charge (invoice.payment_failed)',
    status: 200,
    localOnly: true,
    schemas: () => ({
      params: subscriptionParams(),
      response: delivery(),
    }),
  },
  {
    id: 'local.webhooks.log',
    method: 'GET',
    path: '/_local/webhooks',
    group: 'local-providers',
    auth: none,
    scope: scope.public,
    summary: 'Every webhook the local payment providers sent, oldest first, exactly as sent (for replay)',
    status: 200,
    localOnly: true,
    schemas: () => ({
      response: z.array(
        z.object({
          provider: z.string(),
          path: z.string(),
          headers: z.record(z.string(), z.string()),
          rawBody: z.string(),
          responseStatus: z.number(),
          sentAt: z.string(),
        }),
      ),
    }),
  },
]);
