import { createLocalJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { api, e2e, type ApiOptions } from '#test/support/e2e.ts';

/**
 * The sign-in and account routes over real HTTP against `npm start`. Every request comes from its
 * own loopback address (the limiter keys on the TCP peer), so these tests neither hit nor consume
 * the per-IP limits other test files share on 127.0.0.1, except where a limit is the subject.
 */
let next = Math.floor(Math.random() * 200) * 256;
const address = () => {
  next++;
  return `127.${100 + ((next >> 16) & 127)}.${(next >> 8) & 255}.${next & 255 || 1}`;
};
const call = (method: string, path: string, opts: ApiOptions = {}) =>
  api(method, path, { localAddress: address(), ...opts });
const post = (path: string, body: unknown, opts: ApiOptions = {}) => call('POST', path, { body, ...opts });

const email = (tag: string) => `${tag}-${crypto.randomUUID().slice(0, 8)}@example.com`;
const PASSWORD = 'E2e-Strong-Pass-1';

async function mailTo(to: string, count = 1): Promise<{ subject: string; text: string }[]> {
  for (let i = 0; i < 100; i++) {
    const outbox = (await api('GET', '/_local/outbox')).json as { to: string[]; subject: string; text: string }[];
    const mine = outbox.filter((m) => m.to.includes(to));
    if (mine.length >= count) return mine;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no e-mail to ${to}`);
}

async function registerVerified(address: string) {
  const reg = await post('/api/auth/register', {
    email: address,
    password: PASSWORD,
    firstName: 'Eve',
    lastName: 'Tester',
  });
  expect(reg).toAnswer(201);
  const [mail] = await mailTo(address);
  const code = /code is (\d{6})/.exec(mail!.text)![1];
  expect(await post('/api/auth/verify-email', { email: address, code })).toAnswer(200);
  return reg.json.result.id as string;
}

describe('sign-in and account over HTTP', () => {
  it('register, verify, sign in, rotate, detect reuse, log out', async () => {
    const who = email('e2e');
    const id = await registerVerified(who);

    const login = await post('/api/auth/login', { email: who.toUpperCase(), password: PASSWORD, rememberMe: true });
    expect(login).toAnswer(200);
    expect(login.json.result).toMatchObject({
      expiresIn: 900,
      requiredEmailVerification: false,
      user: { id, email: who, roles: [], tenantId: null },
    });
    const { accessToken, refreshToken } = login.json.result;

    // Other services verify the token with the published keys alone.
    const jwks = createLocalJWKSet((await api('GET', '/.well-known/jwks.json')).json);
    const { payload } = await jwtVerify(accessToken, jwks, { algorithms: ['ES256'] });
    expect(payload).toMatchObject({ sub: id, email: who });

    const rotated = await post('/api/auth/refresh-token', { accessToken, refreshToken }, { token: accessToken });
    expect(rotated).toAnswer(200);
    const reuse = await post('/api/auth/refresh-token', { accessToken, refreshToken }, { token: accessToken });
    expect(reuse).toAnswer(401);
    const revoked = await post(
      '/api/auth/refresh-token',
      { accessToken, refreshToken: rotated.json.result.refreshToken },
      { token: accessToken },
    );
    expect(revoked).toAnswer(401);

    const again = await post('/api/auth/login', { email: who, password: PASSWORD });
    const s = again.json.result;
    const out = await post('/api/auth/logout', { refreshToken: s.refreshToken }, { token: s.accessToken });
    expect(out).toAnswer(204);
    expect(out.text).toBe('');
    const afterLogout = await post(
      '/api/auth/refresh-token',
      { accessToken: s.accessToken, refreshToken: s.refreshToken },
      { token: s.accessToken },
    );
    expect(afterLogout).toAnswer(401);
    expect(afterLogout.json).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
  });

  it('gives exactly one 201 for concurrent registrations of one address', async () => {
    const who = email('race');
    const results = await Promise.all(
      [who, who.toUpperCase(), ` ${who}`].map((e) =>
        post('/api/auth/register', { email: e, password: PASSWORD, firstName: 'R', lastName: 'C' }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    expect(results.filter((r) => r.status === 400).every((r) => r.json.error.code === 'DUPLICATE_EMAIL')).toBe(true);
  });

  it('signs the seeded SystemAdmin in; wrong password and unknown e-mail are the same 401', async () => {
    const { adminEmail, adminPassword } = e2e();
    const admin = await post('/api/auth/login', { email: adminEmail, password: adminPassword });
    expect(admin).toAnswer(200);
    expect(admin.json.result.user).toMatchObject({ roles: ['SystemAdmin'], tenantId: null });
    const wrong = await post('/api/auth/login', { email: adminEmail, password: 'Wrong-Pass-1' });
    const unknown = await post('/api/auth/login', { email: email('nobody'), password: 'Wrong-Pass-1' });
    expect(wrong).toAnswer(401);
    expect(wrong.json).toEqual(unknown.json);
    expect(wrong.json.error.code).toBe('INVALID_CREDENTIALS');
  });

  it('limits sign-in per source address: the sixth try from one address is 429 while another passes', async () => {
    const { adminEmail, adminPassword } = e2e();
    const one = address();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await api('POST', '/api/auth/login', { body: { email: adminEmail }, localAddress: one })).status);
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
    const limited = await api('POST', '/api/auth/login', {
      body: { email: adminEmail, password: adminPassword },
      localAddress: one,
    });
    expect(limited).toAnswer(429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await post('/api/auth/login', { email: adminEmail, password: adminPassword })).toAnswer(200);
  });

  it('forgot and reset password by the e-mailed token; change password; both revoke sessions', async () => {
    const who = email('reset');
    await registerVerified(who);
    const first = (await post('/api/auth/login', { email: who, password: PASSWORD })).json.result;

    expect((await post('/api/auth/forgot-password', { email: email('ghost') })).json).toEqual({
      success: true,
      result: null,
    });
    expect((await post('/api/auth/forgot-password', { email: who })).json).toEqual({ success: true, result: null });
    const mails = await mailTo(who, 2);
    const token = /reset code: (\S+)/.exec(mails.at(-1)!.text)![1]!;
    expect(
      await post('/api/auth/reset-password', { email: who, resetToken: token, newPassword: 'Reset-E2e-Pass-2' }),
    ).toAnswer(200);
    expect(
      await post('/api/auth/reset-password', { email: who, resetToken: token, newPassword: 'Reset-E2e-Pass-3' }),
    ).toAnswer(400);
    const stale = await post(
      '/api/auth/refresh-token',
      { accessToken: first.accessToken, refreshToken: first.refreshToken },
      { token: first.accessToken },
    );
    expect(stale).toAnswer(401);

    const s = (await post('/api/auth/login', { email: who, password: 'Reset-E2e-Pass-2' })).json.result;
    const changed = await post(
      '/api/auth/change-password',
      { currentPassword: 'Reset-E2e-Pass-2', newPassword: 'Changed-E2e-Pass-4' },
      { token: s.accessToken },
    );
    expect(changed).toAnswer(200);
    expect(
      await post(
        '/api/auth/refresh-token',
        { accessToken: s.accessToken, refreshToken: s.refreshToken },
        { token: s.accessToken },
      ),
    ).toAnswer(401);
    expect(await post('/api/auth/login', { email: who, password: 'Changed-E2e-Pass-4' })).toAnswer(200);
  });
});

describe('external sign-in against the local providers over HTTP', () => {
  const REDIRECT = 'http://localhost:5173/auth/callback';

  /** The browser's visit to the provider: one GET whose 302 carries the code back. */
  async function consent(authorizationUrl: string, params: Record<string, string>) {
    const url = new URL(authorizationUrl);
    expect(url.origin).toBe(new URL(e2e().baseUrl).origin);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    return { code: back.searchParams.get('code')!, state: back.searchParams.get('state')! };
  }

  for (const p of ['a', 'b'] as const) {
    it(`identity provider ${p.toUpperCase()}: start, consent, callback, and the same user next time`, async () => {
      const who = email(`idp-${p}`);
      const signIn = async () => {
        const start = await post(`/api/auth/login/identity-provider-${p}`, { redirectUri: REDIRECT });
        expect(start).toAnswer(200);
        expect(start.json.result).toEqual({
          authorizationUrl: expect.any(String),
          state: expect.any(String),
          clientBinding: expect.any(String),
          clientId: expect.any(String),
        });
        const { code, state } = await consent(start.json.result.authorizationUrl, {
          login_hint: who,
          given_name: 'Ida',
          family_name: p.toUpperCase(),
        });
        expect(state).toBe(start.json.result.state);
        // Both callbacks take the state and the binding only the starting client holds.
        const body = { code, state, clientBinding: start.json.result.clientBinding, redirectUri: REDIRECT };
        return post(`/api/auth/login/identity-provider-${p}/callback`, body);
      };
      const first = await signIn();
      expect(first, JSON.stringify(first.json)).toAnswer(200);
      expect(first.json.result).toMatchObject({
        requiredEmailVerification: false,
        user: { email: who, firstName: 'Ida', lastName: p.toUpperCase() },
      });
      const second = await signIn();
      expect(second.json.result.user.id).toBe(first.json.result.user.id);

      const bad = await post(`/api/auth/login/identity-provider-${p}`, { redirectUri: 'https://evil.example/cb' });
      expect(bad).toAnswer(400, 'INVALID_REDIRECT_URI');
    });
  }

  for (const p of ['a', 'b'] as const) {
    it(`identity provider ${p.toUpperCase()}: a callback URL leaked to another address signs nobody in`, async () => {
      const who = email(`leak-${p}`);
      const victim = await post(`/api/auth/login/identity-provider-${p}`, { redirectUri: REDIRECT });
      const { code, state } = await consent(victim.json.result.authorizationUrl, { login_hint: who });
      // The attacker has the URL (code and state) but not the binding the victim's client kept.
      for (const body of [
        { code, redirectUri: REDIRECT },
        { code, state, redirectUri: REDIRECT },
        { code, state, clientBinding: 'guessed', redirectUri: REDIRECT },
      ]) {
        const stolen = await post(`/api/auth/login/identity-provider-${p}/callback`, body);
        expect(stolen).toAnswer(400);
        expect(stolen.json).toMatchObject({
          success: false,
          error: { code: expect.stringMatching(/^(VALIDATION_ERROR|INVALID_CLIENT_BINDING)$/) },
        });
        expect(stolen.text).not.toContain('accessToken');
      }
      const own = await post(`/api/auth/login/identity-provider-${p}/callback`, {
        code,
        state,
        clientBinding: victim.json.result.clientBinding,
        redirectUri: REDIRECT,
      });
      expect(own).toAnswer(200);
      expect(own.json.result.user.email).toBe(who);
    });
  }
});
