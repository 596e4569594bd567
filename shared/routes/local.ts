import * as z from 'zod/mini';
import { defineRoutes } from './types.ts';

/** Routes served only by the local server (`localOnly`): stand-ins for external providers. */

const idpParams = z.object({ idp: z.enum(['a', 'b']) });
const q = (max = 2048) => z.optional(z.string().check(z.maxLength(max)));
const none = { kind: 'none' } as const;

export const localRoutes = defineRoutes([
  {
    id: 'local.idp.discovery',
    method: 'GET',
    path: '/_local/idp/{idp}/.well-known/openid-configuration',
    group: 'local-providers',
    auth: none,
    summary: 'Local identity provider A or B: OpenID Connect discovery document',
    status: 200,
    params: idpParams,
    rawResponse: { contentType: 'application/json' },
    localOnly: true,
  },
  {
    id: 'local.idp.authorize',
    method: 'GET',
    path: '/_local/idp/{idp}/authorize',
    group: 'local-providers',
    auth: none,
    summary:
      'Local identity provider: authorization endpoint. With `login_hint` (the test user e-mail; optional `email_verified`, `given_name`, `family_name`, `sub`) it consents at once and redirects (302) back with a code; without, it shows a sign-in form',
    status: 200,
    params: idpParams,
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
    rawResponse: { contentType: 'text/html' },
    localOnly: true,
  },
  {
    id: 'local.idp.token',
    method: 'POST',
    path: '/_local/idp/{idp}/token',
    group: 'local-providers',
    auth: none,
    summary: 'Local identity provider: token endpoint (form-encoded authorization_code grant, client_secret_basic or _post, PKCE S256)',
    status: 200,
    params: idpParams,
    bodyType: 'raw',
    maxBodyBytes: 16 * 1024,
    rawResponse: { contentType: 'application/json' },
    localOnly: true,
  },
  {
    id: 'local.idp.jwks',
    method: 'GET',
    path: '/_local/idp/{idp}/jwks.json',
    group: 'local-providers',
    auth: none,
    summary: 'Local identity provider: public keys of its ID tokens',
    status: 200,
    params: idpParams,
    rawResponse: { contentType: 'application/json' },
    localOnly: true,
  },
  {
    id: 'local.oauth.callback',
    method: 'GET',
    path: '/_local/oauth/callback',
    group: 'local-providers',
    auth: none,
    summary: 'Stand-in for the web app page a provider redirects to: shows the code and state to post to the callback route',
    status: 200,
    query: z.object({ code: q(), state: q(512), error: q(200) }),
    rawResponse: { contentType: 'text/html' },
    localOnly: true,
  },
]);
