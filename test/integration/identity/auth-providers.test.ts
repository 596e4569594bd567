import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerClientSecret, providerConfig } from '#areas/identity/identity-providers.ts';
import { sha256 } from '#shared/auth/opaque.ts';
import { identityKeys } from '#areas/identity/records.ts';
import { findUserByEmail } from '#areas/identity/user-accounts.ts';
import { invoke } from '#test/support/invoke.ts';
import {
  auditOf,
  freshIp,
  login,
  readItem,
  routeFetchToLocalProviders,
  seedUser,
  uniqueEmail,
} from './auth-support.ts';

const REDIRECT = 'http://localhost:5173/auth/callback';
type Letter = 'a' | 'b';
const base = (p: Letter) => `/api/auth/login/identity-provider-${p}`;

const start = (p: Letter, redirectUri = REDIRECT) => invoke('POST', base(p), { body: { redirectUri }, ip: freshIp() });
const callback = (p: Letter, body: Record<string, unknown>) =>
  invoke('POST', `${base(p)}/callback`, { body, ip: freshIp() });

/** Follows the authorization URL at the local provider as a browser would, consenting as `user`. */
async function authorize(authorizationUrl: string, user: Record<string, string>) {
  const url = new URL(authorizationUrl);
  for (const [k, v] of Object.entries(user)) url.searchParams.set(k, v);
  const res = await invoke('GET', `${url.pathname}${url.search}`);
  expect(res).toAnswer(302);
  const back = new URL(res.headers.location!);
  return {
    code: back.searchParams.get('code')!,
    state: back.searchParams.get('state'),
    redirect: `${back.origin}${back.pathname}`,
  };
}

async function signInWith(p: Letter, user: Record<string, string>) {
  const started = await start(p);
  expect(started).toAnswer(200);
  const { code, state } = await authorize(started.json.result.authorizationUrl, user);
  expect(state).toBe(started.json.result.state);
  return callback(p, { code, state, clientBinding: started.json.result.clientBinding, redirectUri: REDIRECT });
}

let restore: () => void;
beforeAll(() => {
  restore = routeFetchToLocalProviders();
});
afterAll(() => restore());

describe('external sign-in against the local providers', () => {
  it('B: start returns the authorization URL with state, nonce and PKCE; the callback signs a new user in', async () => {
    const email = uniqueEmail('idpb');
    const started = await start('b');
    expect(started.json.result).toEqual({
      authorizationUrl: expect.any(String),
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      clientBinding: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      clientId: providerConfig('identity-provider-b').clientId,
    });
    const url = new URL(started.json.result.authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(providerConfig('identity-provider-b').authorizationEndpoint);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: started.json.result.clientId,
      redirect_uri: REDIRECT,
      state: started.json.result.state,
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      nonce: expect.any(String),
    });
    // The binding is the client's alone: the provider never sees it.
    expect(started.json.result.authorizationUrl).not.toContain(started.json.result.clientBinding);

    const { code, state } = await authorize(started.json.result.authorizationUrl, {
      login_hint: email,
      given_name: 'Bea',
      family_name: 'Bee',
    });
    const clientBinding = started.json.result.clientBinding;
    const res = await callback('b', { code, state, clientBinding, redirectUri: REDIRECT });
    expect(res, JSON.stringify(res.json)).toAnswer(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(started.headers['cache-control']).toBe('no-store');
    expect(res.json.result).toMatchObject({
      expiresIn: 900,
      requiredEmailVerification: false,
      user: { email, firstName: 'Bea', lastName: 'Bee', roles: [], tenantId: null, permissions: [] },
    });
    expect(decodeJwt(res.json.result.accessToken).sub).toBe(res.json.result.user.id);
    const user = await findUserByEmail(email);
    expect(user).toMatchObject({ id: res.json.result.user.id, isEmailVerified: true, passwordHash: null });

    // The same state and code cannot be used again; a second sign-in finds the same user.
    const replay = await callback('b', { code, state, clientBinding, redirectUri: REDIRECT });
    expect(replay).toAnswer(400, 'INVALID_STATE');
    const again = await signInWith('b', { login_hint: email });
    expect(again.json.result.user.id).toBe(user!.id);
    const actions = (await auditOf(user!.id)).map((a) => a.action);
    expect(actions.filter((a) => a === 'login.succeeded')).toHaveLength(2);
  });

  it('A: state, PKCE and the client binding are required as for B', async () => {
    const email = uniqueEmail('idpa');
    const started = await start('a');
    const url = new URL(started.json.result.authorizationUrl);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('nonce')).toBeTruthy();
    const { code, state } = await authorize(started.json.result.authorizationUrl, { login_hint: email });
    const withoutState = await callback('a', {
      code,
      clientBinding: started.json.result.clientBinding,
      redirectUri: REDIRECT,
    });
    expect(withoutState).toAnswer(400);
    expect(withoutState.json.error.details.map((d: { path: string }) => d.path)).toEqual(['body.state']);
    const signedIn = await callback('a', {
      code,
      state,
      clientBinding: started.json.result.clientBinding,
      redirectUri: REDIRECT,
    });
    expect(signedIn).toAnswer(200);
    expect(signedIn.json.result.user.email).toBe(email);
  });

  it.each(['a', 'b'] as const)(
    '%s: a leaked callback URL (code and state) signs nobody in without the client binding',
    async (p) => {
      const email = uniqueEmail(`leak${p}`);
      const victim = await start(p);
      const { code, state } = await authorize(victim.json.result.authorizationUrl, { login_hint: email });
      const attacker = await start(p);
      for (const body of [
        { code, state, redirectUri: REDIRECT },
        { code, state, clientBinding: attacker.json.result.clientBinding, redirectUri: REDIRECT },
        {
          code,
          state,
          clientBinding: `${victim.json.result.clientBinding.slice(0, -1)}${victim.json.result.clientBinding.endsWith('A') ? 'B' : 'A'}`,
          redirectUri: REDIRECT,
        },
      ]) {
        const stolen = await callback(p, body);
        expect(stolen).toAnswer(400);
        expect(stolen.json.success).toBe(false);
        expect(stolen.json.result).toBeUndefined();
        expect(['VALIDATION_ERROR', 'INVALID_CLIENT_BINDING']).toContain(stolen.json.error.code);
      }
      expect(await findUserByEmail(email)).toBeUndefined();
      // The attempts did not spend the victim's flow: the client that started it still signs in.
      const own = await callback(p, {
        code,
        state,
        clientBinding: victim.json.result.clientBinding,
        redirectUri: REDIRECT,
      });
      expect(own).toAnswer(200);
      expect(own.json.result.user.email).toBe(email);
    },
  );

  it("refuses an ID token whose nonce is not the flow's (a code minted for another sign-in)", async () => {
    const email = uniqueEmail('nonce');
    const started = await start('b');
    // The provider echoes whatever nonce the authorization request carried.
    const { code, state } = await authorize(started.json.result.authorizationUrl, {
      login_hint: email,
      nonce: 'another-flows-nonce',
    });
    const res = await callback('b', {
      code,
      state,
      clientBinding: started.json.result.clientBinding,
      redirectUri: REDIRECT,
    });
    expect(res).toAnswer(400, 'INVALID_STATE');
    expect(await findUserByEmail(email)).toBeUndefined();
  });

  it('never links a provider identity to a SystemAdmin account by e-mail', async () => {
    const admin = await seedUser({ roles: ['SystemAdmin'], isEmailVerified: true });
    const res = await signInWith('b', { login_hint: admin.email });
    expect(res).toAnswer(409, 'ACCOUNT_EXISTS');
    expect(res.json.result).toBeUndefined();
    expect(
      await readItem(identityKeys.identityLink('identity-provider-b', `b-${sha256(`b:${admin.email}`).slice(0, 24)}`)),
    ).toBeUndefined();
    expect(await login(admin.email)).toAnswer(200);
  });

  it('refuses redirect URIs off the allow-list, foreign or missing state, and mismatched redirect URIs', async () => {
    const off = await start('b', 'https://evil.example/cb');
    expect(off).toAnswer(400, 'INVALID_REDIRECT_URI');
    expect(
      (await callback('a', { code: 'x', state: 's', clientBinding: 'c', redirectUri: 'https://evil.example/cb' })).json
        .error.code,
    ).toBe('INVALID_REDIRECT_URI');

    const missingState = await callback('b', { code: 'x', clientBinding: 'c', redirectUri: REDIRECT });
    expect(missingState).toAnswer(400, 'VALIDATION_ERROR');
    expect(
      (await callback('b', { code: 'x', state: 'made-up', clientBinding: 'c', redirectUri: REDIRECT })).json.error.code,
    ).toBe('INVALID_STATE');

    // A state started for provider A is not accepted by B's callback.
    const fromA = await start('a');
    expect(
      (
        await callback('b', {
          code: 'x',
          state: fromA.json.result.state,
          clientBinding: fromA.json.result.clientBinding,
          redirectUri: REDIRECT,
        })
      ).json.error.code,
    ).toBe('INVALID_STATE');

    // Same state, other (allowed) redirect URI than the flow was started with.
    const other = 'http://127.0.0.1:5173/auth/callback';
    const b = await start('b');
    const { code } = await authorize(b.json.result.authorizationUrl, { login_hint: uniqueEmail('mismatch') });
    expect(
      (
        await callback('b', {
          code,
          state: b.json.result.state,
          clientBinding: b.json.result.clientBinding,
          redirectUri: other,
        })
      ).json.error.code,
    ).toBe('INVALID_STATE');
  });

  it('links to an existing account only when the provider vouches for the e-mail', async () => {
    const owner = await seedUser({ isEmailVerified: true });
    const unverifiedClaim = await signInWith('b', { login_hint: owner.email, email_verified: 'false' });
    expect(unverifiedClaim).toAnswer(409, 'ACCOUNT_EXISTS');

    const linked = await signInWith('b', { login_hint: owner.email });
    expect(linked).toAnswer(200);
    expect(linked.json.result.user.id).toBe(owner.id);
    expect(
      await readItem(identityKeys.identityLink('identity-provider-b', `b-${sha256(`b:${owner.email}`).slice(0, 24)}`)),
    ).toMatchObject({ userId: owner.id });
    expect(await login(owner.email)).toAnswer(200);

    // An address registered but never verified: the provider's verified sign-in takes it over.
    const squatter = await seedUser({ isEmailVerified: false });
    const takeover = await signInWith('a', { login_hint: squatter.email });
    expect(takeover.json.result.user.id).toBe(squatter.id);
    expect((await findUserByEmail(squatter.email))!.passwordHash).toBeUndefined();
    expect((await login(squatter.email)).json.error.code).toBe('INVALID_CREDENTIALS');

    // A new account from an unverified provider e-mail must verify before getting tokens.
    const fresh = await signInWith('a', { login_hint: uniqueEmail('unverified'), email_verified: 'false' });
    expect(fresh.json.result).toMatchObject({ requiredEmailVerification: true, accessToken: '' });
  });

  it('the local token endpoint enforces client authentication, PKCE and single-use codes', async () => {
    const b = await start('b');
    const { code } = await authorize(b.json.result.authorizationUrl, { login_hint: uniqueEmail('pkce') });
    const cfg = providerConfig('identity-provider-b');
    const secret = await providerClientSecret('identity-provider-b');
    const form = (extra: Record<string, string>) =>
      new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: cfg.clientId,
        ...extra,
      }).toString();
    const post = (body: string) =>
      invoke('POST', '/_local/idp/b/token', { rawBody: body, contentType: 'application/x-www-form-urlencoded' });

    expect((await post(form({ client_secret: 'wrong', code_verifier: 'x'.repeat(43) }))).json.error).toBe(
      'invalid_client',
    );
    const badVerifier = await post(form({ client_secret: secret, code_verifier: 'x'.repeat(43) }));
    expect(badVerifier).toAnswer(400);
    expect(badVerifier.json.error).toBe('invalid_grant');
    // The failed attempt used the code up.
    expect(
      (
        await callback('b', {
          code,
          state: b.json.result.state,
          clientBinding: b.json.result.clientBinding,
          redirectUri: REDIRECT,
        })
      ).json.error.code,
    ).toBe('INVALID_AUTHORIZATION_CODE');

    const page = await invoke(
      'GET',
      new URL(b.json.result.authorizationUrl).pathname + new URL(b.json.result.authorizationUrl).search,
    );
    expect(page).toAnswer(200);
    expect(page.text).toContain('name="login_hint"');
    const jwks = await invoke('GET', '/_local/idp/b/jwks.json');
    expect(jwks.json.keys[0]).toMatchObject({ kty: 'EC', alg: 'ES256' });
    expect(jwks.json.keys[0].d).toBeUndefined();
    const discovery = await invoke('GET', '/_local/idp/a/.well-known/openid-configuration');
    expect(discovery.json).toMatchObject({
      issuer: providerConfig('identity-provider-a').issuer,
      id_token_signing_alg_values_supported: ['RS256'],
    });
  });
});
