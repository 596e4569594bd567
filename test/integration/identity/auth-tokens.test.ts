import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SignJWT, UnsecuredJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueAccessToken } from '#shared/auth/access-token.ts';
import { sha256 } from '#shared/auth/opaque.ts';
import { signingKey } from '#shared/auth/signing-keys.ts';
import { keys } from '#shared/data/keys.ts';
import { identityKeys, type RefreshTokenItem } from '#areas/identity/records.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { inOneRateWindow } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { PASSWORD, auditOf, freshIp, login, readItem, seedTenant, seedUser, signedIn } from './auth-support.ts';

const refresh = (bearer: string, refreshToken: string, accessToken = bearer) =>
  invoke('POST', '/api/auth/refresh-token', { token: bearer, body: { accessToken, refreshToken }, ip: freshIp() });
const logout = (token: string, refreshToken: string) =>
  invoke('POST', '/api/auth/logout', { token, body: { refreshToken }, ip: freshIp() });
const changePassword = (token: string, currentPassword: string, newPassword: string, ip = freshIp()) =>
  invoke('POST', '/api/auth/change-password', { token, body: { currentPassword, newPassword }, ip });

let tenantId: string;
beforeAll(async () => {
  tenantId = await seedTenant(1);
});

const expiredTokenFor = (user: { id: string; email: string; tenantId: string | null; roles: string[] }) =>
  issueAccessToken(
    { userId: user.id, tenantId: user.tenantId, roles: user.roles, permissions: [], email: user.email },
    -120,
  ).then((t) => t.accessToken);

describe('POST /api/auth/refresh-token', () => {
  it('rotates on every use; reusing a rotated token revokes the whole family', async () => {
    const user = await seedUser({ tenantId, roles: ['TenantOwner'] });
    const first = await signedIn(user.email);

    const second = await refresh(first.accessToken, first.refreshToken);
    expect(second).toAnswer(200);
    expect(second.json.result).toEqual({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      expiresIn: 900,
    });
    expect(second.json.result.refreshToken).not.toBe(first.refreshToken);
    expect((await readItem(identityKeys.refreshToken(sha256(first.refreshToken))))!.status).toBe('rotated');

    const third = await refresh(second.json.result.accessToken, second.json.result.refreshToken);
    expect(third).toAnswer(200);

    // The first token again: reuse. It fails, and so does the latest token of its family.
    const reuse = await refresh(third.json.result.accessToken, first.refreshToken);
    expect(reuse).toAnswer(401, 'UNAUTHORIZED');
    const latest = await refresh(third.json.result.accessToken, third.json.result.refreshToken);
    expect(latest).toAnswer(401);
    const family = await readItem<RefreshTokenItem>(identityKeys.refreshToken(sha256(first.refreshToken)));
    expect(await readItem(identityKeys.tokenFamily(family!.familyId))).toMatchObject({ revokedReason: 'reuse' });
    expect((await auditOf(user.id)).map((a) => a.action)).toContain('token.reuse');

    // Another session of the same user is untouched.
    const other = await signedIn(user.email);
    expect(await refresh(other.accessToken, other.refreshToken)).toAnswer(200);
  });

  it('lets exactly one of two concurrent refreshes with one token win, and treats the loser as reuse', async () => {
    const user = await seedUser();
    const s = await signedIn(user.email);
    const results = await Promise.all([refresh(s.accessToken, s.refreshToken), refresh(s.accessToken, s.refreshToken)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
    // One token presented twice is a leak: the family is revoked, the winner's new token included.
    const winner = results.find((r) => r.status === 200)!.json.result;
    const family = await readItem<RefreshTokenItem>(identityKeys.refreshToken(sha256(s.refreshToken)));
    expect(await readItem(identityKeys.tokenFamily(family!.familyId))).toMatchObject({ revokedReason: 'reuse' });
    expect(await refresh(winner.accessToken, winner.refreshToken)).toAnswer(401);
  });

  it('accepts an expired access token of the same user, but not a foreign, tampered or unsigned one', async () => {
    const user = await seedUser({ tenantId, roles: ['TenantMember'] });
    const other = await seedUser();
    const session = await signedIn(user.email);
    const otherSession = await signedIn(other.email);

    const expired = await expiredTokenFor(user);
    const viaExpired = await refresh(expired, session.refreshToken);
    expect(viaExpired).toAnswer(200);
    const current = viaExpired.json.result as { accessToken: string; refreshToken: string };

    // A refresh token of another user: 401, and nothing changes for either session.
    const foreign = await refresh(current.accessToken, otherSession.refreshToken);
    expect(foreign).toAnswer(401);
    expect((await readItem(identityKeys.refreshToken(sha256(otherSession.refreshToken))))!.status).toBe('active');
    // Header and body access tokens of different users.
    expect(await refresh(current.accessToken, current.refreshToken, otherSession.accessToken)).toAnswer(401);

    const [h, p, sig] = current.accessToken.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: other.id })).toString('base64url')}.${sig}`;
    const unsigned = new UnsecuredJWT({ ...claims }).encode();
    const { key, kid } = await signingKey();
    const wrongAudience = await new SignJWT({ ...claims, aud: 'someone-else' })
      .setProtectedHeader({ alg: 'ES256', kid })
      .sign(key);
    const wrongIssuer = await new SignJWT({ ...claims, iss: 'https://evil.example' })
      .setProtectedHeader({ alg: 'ES256', kid })
      .sign(key);
    for (const bad of [forged, unsigned, wrongAudience, wrongIssuer]) {
      const res = await invoke('POST', '/api/auth/refresh-token', {
        headers: { authorization: `Bearer ${bad}` },
        body: { accessToken: bad, refreshToken: current.refreshToken },
        ip: freshIp(),
      });
      expect(res).toAnswer(401, 'UNAUTHORIZED');
    }
    // Nothing above consumed the token.
    expect(await refresh(current.accessToken, current.refreshToken)).toAnswer(200);
  });

  it('re-checks the account: a disabled user cannot refresh, and bad input is 400', async () => {
    const user = await seedUser();
    const s = await signedIn(user.email);
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.user(null, user.id),
        UpdateExpression: 'SET isActive = :f',
        ExpressionAttributeValues: { ':f': false },
      }),
    );
    const res = await refresh(s.accessToken, s.refreshToken);
    expect(res).toAnswer(403, 'ACCOUNT_DISABLED');

    expect(
      await invoke('POST', '/api/auth/refresh-token', {
        body: { accessToken: s.accessToken, refreshToken: s.refreshToken },
      }),
    ).toAnswer(401);
    const missing = await invoke('POST', '/api/auth/refresh-token', {
      token: s.accessToken,
      body: { accessToken: s.accessToken },
    });
    expect(missing.json.error.code).toBe('VALIDATION_ERROR');
    const malformed = await refresh(s.accessToken, 'not a token!');
    expect(malformed.json.error.code).toBe('VALIDATION_ERROR');
    expect(await refresh(s.accessToken, 'x'.repeat(43))).toAnswer(401);
  });
});

describe('POST /api/auth/logout', () => {
  it('revokes the family (204), after which refresh fails; repeating is 204, a foreign token 401', async () => {
    const user = await seedUser();
    const other = await seedUser();
    const s = await signedIn(user.email);
    const o = await signedIn(other.email);

    const foreign = await logout(s.accessToken, o.refreshToken);
    expect(foreign).toAnswer(401);
    expect((await readItem(identityKeys.refreshToken(sha256(o.refreshToken))))!.status).toBe('active');

    const out = await logout(s.accessToken, s.refreshToken);
    expect(out).toAnswer(204);
    expect(out.text).toBe('');
    expect(await refresh(s.accessToken, s.refreshToken)).toAnswer(401);
    expect(await logout(s.accessToken, s.refreshToken)).toAnswer(204);
    expect(await invoke('POST', '/api/auth/logout', { body: { refreshToken: s.refreshToken } })).toAnswer(401);

    const actions = (await auditOf(user.id)).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(['logout', 'logout.failed']));
    expect(await refresh(o.accessToken, o.refreshToken)).toAnswer(200);
  });
});

describe('POST /api/auth/change-password', () => {
  it('needs the current password, applies the policy and revokes every session', async () => {
    const user = await seedUser();
    const a = await signedIn(user.email);
    const b = await signedIn(user.email, PASSWORD, true);

    const wrong = await changePassword(a.accessToken, 'Not-Current-1', 'Brand-New-Pass-7');
    expect(wrong).toAnswer(400, 'INVALID_CURRENT_PASSWORD');
    const weak = await changePassword(a.accessToken, PASSWORD, 'weakpass');
    expect(weak.json.error.code).toBe('VALIDATION_ERROR');
    expect((await changePassword(a.accessToken, PASSWORD, PASSWORD)).json.error.code).toBe('PASSWORD_UNCHANGED');
    expect(
      await invoke('POST', '/api/auth/change-password', {
        body: { currentPassword: PASSWORD, newPassword: 'Brand-New-Pass-7' },
      }),
    ).toAnswer(401);

    const ok = await changePassword(a.accessToken, PASSWORD, 'Brand-New-Pass-7');
    expect(ok).toAnswer(200);
    expect(ok.json).toEqual({ success: true, result: null });

    expect(await refresh(a.accessToken, a.refreshToken)).toAnswer(401);
    expect(await refresh(b.accessToken, b.refreshToken)).toAnswer(401);
    expect((await login(user.email)).json.error.code).toBe('INVALID_CREDENTIALS');
    expect(await login(user.email, 'Brand-New-Pass-7')).toAnswer(200);

    const actions = (await auditOf(user.id)).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(['password.changed', 'password.change.failed']));
  });

  it('counts toward the sign-in limiter of the IP', async () => {
    const user = await seedUser();
    const s = await signedIn(user.email);
    const ip = freshIp();
    const statuses: number[] = [];
    await inOneRateWindow(async () => {
      for (let i = 0; i < 6; i++)
        statuses.push(
          (await invoke('POST', '/api/auth/change-password', { token: s.accessToken, body: {}, ip })).status,
        );
    });
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
  });
});
