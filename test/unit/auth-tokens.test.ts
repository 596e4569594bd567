import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { SignJWT, UnsecuredJWT, decodeProtectedHeader, generateKeyPair } from 'jose';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InvalidTokenError, issueAccessToken, verifyAccessToken } from '#shared/auth/access-token.ts';
import { sha256 } from '#shared/auth/opaque.ts';
import {
  REFRESH_TTL_SECONDS,
  familyIsLive,
  newSession,
  rotate,
  type TokenFamily,
} from '#areas/identity/refresh-tokens.ts';
import { generateSigningKeyParams, resetKeyCache, signingKey, signingParams } from '#shared/auth/signing-keys.ts';
import { identityKeys } from '#areas/identity/records.ts';
import { config } from '#shared/platform/config.ts';

const KID = '00000000-0000-4000-8000-000000000001';
const subject = {
  userId: 'u-1',
  tenantId: 't-1',
  roles: ['TenantOwner'],
  permissions: ['users:read'],
  email: 'ada@example.com',
};

describe('access tokens with the keys in SSM (mocked)', () => {
  const ssm = mockClient(SSMClient);

  beforeAll(async () => {
    // Prepare: the two parameters the deploy script writes.
    const params = await generateSigningKeyParams(KID);
    const names = signingParams();
    ssm
      .on(GetParameterCommand, { Name: names.publicJwks })
      .resolves({ Parameter: { Value: params.publicJwks, Version: 1 } });
    ssm
      .on(GetParameterCommand, { Name: names.privateJwk })
      .resolves({ Parameter: { Value: params.privateJwk, Version: 1 } });
    resetKeyCache();
  });

  it('issues ES256 with kid and the claims, and verifies them', async () => {
    const { accessToken, expiresIn } = await issueAccessToken(subject);
    expect(expiresIn).toBe(900);
    expect(decodeProtectedHeader(accessToken)).toEqual({ alg: 'ES256', kid: KID, typ: 'JWT' });
    const principal = await verifyAccessToken(accessToken);
    expect(principal).toMatchObject({ ...subject, jti: expect.any(String) });
    expect(principal.expiresAt - Math.floor(Date.now() / 1000)).toBeGreaterThan(890);
    // The private key is read decrypted, the public set without decryption; each once.
    const calls = ssm.commandCalls(GetParameterCommand).map((c) => c.args[0].input);
    expect(calls).toEqual(
      expect.arrayContaining([
        { Name: signingParams().privateJwk, WithDecryption: true },
        { Name: signingParams().publicJwks, WithDecryption: false },
      ]),
    );
    await verifyAccessToken(accessToken);
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(calls.length);
  });

  it('rejects alg none, a wrong key, a wrong audience or issuer, an unknown kid and a tampered payload', async () => {
    const { accessToken } = await issueAccessToken(subject);
    const [h, p, s] = accessToken.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const { key } = await signingKey();
    const other = await generateKeyPair('ES256');
    const sign = (payload: Record<string, unknown>, k = key, kid = KID) =>
      new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid }).sign(k);
    const hs = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: KID })
      .sign(new TextEncoder().encode('x'.repeat(32)));
    const bad = [
      new UnsecuredJWT(claims).encode(),
      `${Buffer.from(JSON.stringify({ alg: 'none', kid: KID })).toString('base64url')}.${p}.`,
      await sign(claims, other.privateKey),
      await sign({ ...claims, aud: 'other-api' }),
      await sign({ ...claims, iss: 'https://evil.example' }),
      await sign(claims, key, 'kid-unknown'),
      hs,
      `${h}.${Buffer.from(JSON.stringify({ ...claims, roles: ['SystemAdmin'] })).toString('base64url')}.${s}`,
      'not.a.jwt',
    ];
    for (const token of bad) await expect(verifyAccessToken(token), token).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('rejects an expired token unless expiry is explicitly ignored (refresh only)', async () => {
    const { accessToken } = await issueAccessToken(subject, -60);
    await expect(verifyAccessToken(accessToken)).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(verifyAccessToken(accessToken, { ignoreExpiry: true })).resolves.toMatchObject({ userId: 'u-1' });
    const { key } = await signingKey();
    const claims = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString());
    const wrongAudience = await new SignJWT({ ...claims, aud: 'x' })
      .setProtectedHeader({ alg: 'ES256', kid: KID })
      .sign(key);
    await expect(verifyAccessToken(wrongAudience, { ignoreExpiry: true })).rejects.toBeInstanceOf(InvalidTokenError);
  });
});

describe('refresh token commands (DynamoDB mocked)', () => {
  const ddbMock = mockClient(DynamoDBDocumentClient);
  beforeEach(() => ddbMock.reset());

  const family: TokenFamily = {
    familyId: 'f-1',
    userId: 'u-1',
    tenantId: null,
    rememberMe: false,
    sessionVersion: 2,
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: 4_000_000_000,
  };

  it('builds a session: a family indexed by user and a token stored only as its hash', () => {
    const now = new Date('2026-01-01T00:00:00.000Z');
    const { refreshToken, items } = newSession({ id: 'u-1', tenantId: 't-1', sessionVersion: 2 }, true, now);
    expect(refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [familyPut, tokenPut] = items.map((i) => i.Put!);
    expect(familyPut!.Item).toMatchObject({
      gsi2pk: identityKeys.userTokenFamilies('u-1'),
      sessionVersion: 2,
      rememberMe: true,
    });
    expect(tokenPut!.Item).toMatchObject({
      ...identityKeys.refreshToken(sha256(refreshToken)),
      status: 'active',
      expiresAt: now.getTime() / 1000 + REFRESH_TTL_SECONDS.rememberMe,
    });
    expect(JSON.stringify(items)).not.toContain(refreshToken);
  });

  it('rotates with conditions on the old token and the family, and reports reuse', async () => {
    ddbMock.on(TransactWriteCommand).resolves({});
    const outcome = await rotate('old-token', family);
    expect(outcome).toMatchObject({ ok: true });
    const items = ddbMock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items[0]!.Update).toMatchObject({
      Key: identityKeys.refreshToken(sha256('old-token')),
      ConditionExpression: '#status = :active',
      TableName: config.tableName,
    });
    expect(items[2]!.Update!.ConditionExpression).toContain('attribute_not_exists(revokedAt)');

    ddbMock.on(TransactWriteCommand).rejects(
      Object.assign(new Error('cancelled'), {
        name: 'TransactionCanceledException',
        CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }, { Code: 'None' }],
      }),
    );
    expect(await rotate('old-token', family)).toEqual({ ok: false, reason: 'reused' });
    ddbMock.on(TransactWriteCommand).rejects(
      Object.assign(new Error('cancelled'), {
        name: 'TransactionCanceledException',
        CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'ConditionalCheckFailed' }],
      }),
    );
    expect(await rotate('old-token', family)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('treats revoked, expired and older-session-version families as dead', () => {
    const now = 3_000_000_000;
    expect(familyIsLive(family, { id: 'u-1', tenantId: null, sessionVersion: 2 }, now)).toBe(true);
    expect(familyIsLive({ ...family, revokedAt: 'x' }, { id: 'u-1', tenantId: null, sessionVersion: 2 }, now)).toBe(
      false,
    );
    expect(familyIsLive(family, { id: 'u-1', tenantId: null, sessionVersion: 3 }, now)).toBe(false);
    expect(familyIsLive({ ...family, expiresAt: now }, { id: 'u-1', tenantId: null, sessionVersion: 2 }, now)).toBe(
      false,
    );
    expect(familyIsLive(undefined, { id: 'u-1', tenantId: null }, now)).toBe(false);
  });
});
