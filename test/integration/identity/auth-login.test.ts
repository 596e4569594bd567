import { beforeAll, describe, expect, it } from 'vitest';
import { verifyAccessToken } from '#shared/auth/access-token.ts';
import { sha256 } from '#shared/auth/opaque.ts';
import { SYSTEM_ROLE_PERMISSIONS } from '#shared/auth/permissions.ts';
import { identityKeys, type RefreshTokenItem } from '#areas/identity/records.ts';
import { config } from '#shared/platform/config.ts';
import { inOneRateWindow } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { PASSWORD, auditOf, freshIp, login, readItem, seedTenant, seedUser } from './auth-support.ts';

let activeTenant: string;

beforeAll(async () => {
  activeTenant = await seedTenant(1);
});

describe('POST /api/auth/login', () => {
  it('returns the authentication result with a 15-minute ES256 token and a hashed, 1-day refresh token', async () => {
    const user = await seedUser({
      tenantId: activeTenant,
      roles: ['TenantOwner'],
      avatarUrl: 'https://cdn.example/a.png',
    });
    const res = await login(`  ${user.email.toUpperCase()} `);

    expect(res).toAnswer(200);
    // Tokens never sit in a browser or proxy cache.
    expect(res.headers['cache-control']).toBe('no-store');
    const result = res.json.result;
    expect(result).toEqual({
      accessToken: expect.any(String),
      refreshToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expiresIn: 900,
      requiredEmailVerification: false,
      deviceToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user: {
        id: user.id,
        email: user.email,
        firstName: 'Ada',
        lastName: 'Lovelace',
        roles: ['TenantOwner'],
        tenantId: activeTenant,
        permissions: [...SYSTEM_ROLE_PERMISSIONS.TenantOwner],
        avatarUrl: 'https://cdn.example/a.png',
      },
    });
    const header = JSON.parse(Buffer.from(result.accessToken.split('.')[0], 'base64url').toString());
    expect(header).toMatchObject({ alg: 'ES256', kid: expect.any(String) });
    const principal = await verifyAccessToken(result.accessToken);
    expect(principal).toMatchObject({
      userId: user.id,
      tenantId: activeTenant,
      roles: ['TenantOwner'],
      email: user.email,
    });
    expect(principal.expiresAt - Math.floor(Date.now() / 1000)).toBeGreaterThan(890);
    const claims = JSON.parse(Buffer.from(result.accessToken.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({
      iss: config.issuer,
      aud: config.audience,
      sub: user.id,
      tid: activeTenant,
      jti: expect.any(String),
    });

    const stored = await readItem<RefreshTokenItem>(identityKeys.refreshToken(sha256(result.refreshToken)));
    expect(stored).toMatchObject({ userId: user.id, status: 'active' });
    expect(JSON.stringify(stored)).not.toContain(result.refreshToken);
    const lifetime = stored!.expiresAt - Date.now() / 1000;
    expect(lifetime).toBeGreaterThan(24 * 3600 - 60);
    expect(lifetime).toBeLessThanOrEqual(24 * 3600);

    const remembered = await login(user.email, PASSWORD, { rememberMe: true });
    const long = await readItem<RefreshTokenItem>(
      identityKeys.refreshToken(sha256(remembered.json.result.refreshToken)),
    );
    expect(long!.expiresAt - Date.now() / 1000).toBeGreaterThan(30 * 24 * 3600 - 60);

    const audit = await auditOf(user.id);
    expect(audit.filter((a) => a.action === 'login.succeeded')).toHaveLength(2);
    expect(audit.every((a) => !(a.changes ?? '').includes(PASSWORD))).toBe(true);
  });

  it('answers an unknown e-mail and a wrong password alike with 401 INVALID_CREDENTIALS', async () => {
    const user = await seedUser();
    const wrong = await login(user.email, 'Wrong-Password-1');
    const unknown = await login('nobody-at-all@example.com', PASSWORD);
    for (const res of [wrong, unknown]) {
      expect(res).toAnswer(401);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json).toEqual({
        success: false,
        error: { code: 'INVALID_CREDENTIALS', message: 'Invalid e-mail or password' },
      });
    }
    const providerOnly = await seedUser({ passwordHash: null });
    expect((await login(providerOnly.email, PASSWORD)).json.error.code).toBe('INVALID_CREDENTIALS');

    expect((await auditOf(user.id)).map((a) => a.action)).toContain('login.failed');
    const unknownAudit = (await auditOf('unknown')).find((a) => a.changes?.includes('nobody-at-all@example.com'));
    expect(JSON.parse(unknownAudit!.changes!)).toMatchObject({ reason: 'INVALID_CREDENTIALS', method: 'password' });
  });

  it('refuses, after the password check, disabled accounts and tenants that are not active', async () => {
    const cases: [Parameters<typeof seedUser>[0], number, string][] = [
      [{ isActive: false }, 403, 'ACCOUNT_DISABLED'],
      [{ tenantId: await seedTenant(0), roles: ['TenantMember'] }, 403, 'TENANT_PENDING'],
      [{ tenantId: await seedTenant(2), roles: ['TenantMember'] }, 403, 'TENANT_SUSPENDED'],
      [{ tenantId: await seedTenant(3), roles: ['TenantMember'] }, 403, 'TENANT_CANCELLED'],
      [{ tenantId: crypto.randomUUID(), roles: ['TenantMember'] }, 403, 'TENANT_INACTIVE'],
    ];
    for (const [overrides, status, code] of cases) {
      const user = await seedUser(overrides);
      if (code === 'ACCOUNT_DISABLED' || code === 'TENANT_SUSPENDED') {
        const wrongPassword = await login(user.email, 'Not-The-Password-1');
        expect(wrongPassword.json.error.code, code).toBe('INVALID_CREDENTIALS');
      }
      const res = await login(user.email);
      expect(res, code).toAnswer(status, code);
      const audit = await auditOf(user.id);
      expect(audit.some((a) => a.action === 'login.failed' && a.changes?.includes(code))).toBe(true);
    }
  });

  it('signs in a SystemAdmin without a tenant check and a member with read permissions', async () => {
    const admin = await seedUser({ roles: ['SystemAdmin'] });
    const res = await login(admin.email);
    expect(res.json.result.user).toMatchObject({ tenantId: null, roles: ['SystemAdmin'] });
    expect(res.json.result.user.permissions).toEqual(expect.arrayContaining(['tenants:write', 'users:write']));

    const member = await seedUser({ tenantId: activeTenant, roles: ['TenantMember'] });
    const asMember = await login(member.email);
    expect(asMember.json.result.user.permissions.every((p: string) => p.endsWith(':read'))).toBe(true);
  });

  it('rejects malformed input before any work', async () => {
    const cases = [
      {},
      { email: 'a@example.com' },
      { email: 'nope', password: 'x' },
      { email: 'a@example.com', password: 'x'.repeat(257) },
      { email: 'a@example.com', password: 'x', rememberMe: 'yes' },
    ];
    for (const body of cases) {
      const res = await invoke('POST', '/api/auth/login', { body, ip: freshIp() });
      expect(res, JSON.stringify(body)).toAnswer(400, 'VALIDATION_ERROR');
    }
  });

  it('allows 5 sign-in attempts per minute per IP; another IP still passes', async () => {
    const user = await seedUser();
    const ip = freshIp();
    await inOneRateWindow(async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await invoke('POST', '/api/auth/login', { body: { email: user.email }, ip })).status);
      expect(statuses).toEqual([400, 400, 400, 400, 400]);
      const limited = await invoke('POST', '/api/auth/login', { body: { email: user.email, password: PASSWORD }, ip });
      expect(limited).toAnswer(429, 'RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // The limit is shared by the sign-in routes of that IP.
      const register = await invoke('POST', '/api/auth/register', { body: {}, ip });
      expect(register).toAnswer(429);
    });
    expect(await login(user.email)).toAnswer(200);
  });
});
