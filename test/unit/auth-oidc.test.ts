import { GetParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  isAllowedRedirect,
  providerClientSecret,
  providerConfig,
  redirectAllowList,
  resetProviderSecretCache,
} from '#areas/identity/identity-providers.ts';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  authorizationUrl,
  consumeFlow,
  pkceChallenge,
  resetJwksCache,
  startFlow,
  verifyIdToken,
  type AuthorizationFlow,
} from '#areas/identity/oidc-client.ts';
import { ApiError } from '#shared/http/errors.ts';
import { ddb } from '#shared/platform/aws.ts';

const ENV_KEYS = [
  'IDP_B_ISSUER',
  'IDP_B_CLIENT_ID',
  'IDP_B_JWKS_URL',
  'IDP_A_PKCE',
  'OAUTH_REDIRECT_ALLOWLIST',
  'STAGE',
  'PUBLIC_BASE_URL',
];
const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
afterEach(() => {
  for (const k of ENV_KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

describe('provider configuration', () => {
  it('defaults to the local providers on the public base URL, both with PKCE', () => {
    process.env.PUBLIC_BASE_URL = 'http://127.0.0.1:4321';
    const a = providerConfig('identity-provider-a');
    const b = providerConfig('identity-provider-b');
    expect(b).toMatchObject({
      issuer: 'http://127.0.0.1:4321/_local/idp/b',
      authorizationEndpoint: 'http://127.0.0.1:4321/_local/idp/b/authorize',
      tokenEndpoint: 'http://127.0.0.1:4321/_local/idp/b/token',
      jwksUri: 'http://127.0.0.1:4321/_local/idp/b/jwks.json',
      pkce: true,
      clientSecretParam: '/saas/local/providers/identity-provider-b/client-secret',
    });
    expect(a).toMatchObject({ pkce: true });
    process.env.IDP_A_PKCE = 'false';
    expect(providerConfig('identity-provider-a')).toMatchObject({ pkce: false });
  });

  it('allows no redirect URI on a deployed stage without OAUTH_REDIRECT_ALLOWLIST (no localhost fallback)', () => {
    delete process.env.OAUTH_REDIRECT_ALLOWLIST;
    process.env.STAGE = 'local';
    expect(isAllowedRedirect('http://localhost:5173/auth/callback')).toBe(true);
    process.env.STAGE = 'prod';
    expect(redirectAllowList()).toEqual([]);
    expect(isAllowedRedirect('http://localhost:5173/auth/callback')).toBe(false);
    process.env.OAUTH_REDIRECT_ALLOWLIST = 'https://app.example.com/cb';
    expect(isAllowedRedirect('https://app.example.com/cb')).toBe(true);
  });

  it('reads per-provider settings and the redirect allow-list (exact match) from the environment', () => {
    process.env.IDP_B_ISSUER = 'https://login.example.com';
    process.env.IDP_B_CLIENT_ID = 'client-123';
    expect(providerConfig('identity-provider-b')).toMatchObject({
      issuer: 'https://login.example.com',
      tokenEndpoint: 'https://login.example.com/token',
      clientId: 'client-123',
    });
    process.env.OAUTH_REDIRECT_ALLOWLIST = 'https://app.example.com/cb, https://admin.example.com/cb';
    expect(isAllowedRedirect('https://admin.example.com/cb')).toBe(true);
    expect(isAllowedRedirect('https://app.example.com/cb/')).toBe(false);
    expect(isAllowedRedirect('https://app.example.com/cb?x=1')).toBe(false);
  });

  it('builds the authorization URL with the RFC 7636 S256 challenge', () => {
    // RFC 7636 appendix B test vector.
    expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
    const url = new URL(
      authorizationUrl(providerConfig('identity-provider-b'), {
        redirectUri: 'http://x/cb',
        state: 's',
        nonce: 'n',
        codeChallenge: 'c',
      }),
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: providerConfig('identity-provider-b').clientId,
      redirect_uri: 'http://x/cb',
      scope: 'openid email profile',
      state: 's',
      nonce: 'n',
      code_challenge: 'c',
      code_challenge_method: 'S256',
    });
  });
});

describe('client secret from SSM (mocked)', () => {
  const ssm = mockClient(SSMClient);
  beforeEach(() => {
    ssm.reset();
    resetProviderSecretCache();
  });

  it('reads the SecureString once per cold start', async () => {
    ssm.on(GetParameterCommand).resolves({ Parameter: { Value: 's3cret', Version: 1 } });
    expect(await providerClientSecret('identity-provider-a')).toBe('s3cret');
    expect(await providerClientSecret('identity-provider-a')).toBe('s3cret');
    expect(ssm.commandCalls(GetParameterCommand).map((c) => c.args[0].input)).toEqual([
      { Name: '/saas/local/providers/identity-provider-a/client-secret', WithDecryption: true },
    ]);
  });

  it('creates a missing secret only in the local stage', async () => {
    const { ParameterNotFound } = await import('@aws-sdk/client-ssm');
    const notFound = new ParameterNotFound({ message: 'missing', $metadata: {} });
    ssm
      .on(GetParameterCommand)
      .rejectsOnce(notFound)
      .resolves({ Parameter: { Value: 'generated', Version: 1 } });
    ssm.on(PutParameterCommand).resolves({ Version: 1 });
    expect(await providerClientSecret('identity-provider-b')).toBe('generated');
    expect(ssm.commandCalls(PutParameterCommand)[0]!.args[0].input).toMatchObject({
      Type: 'SecureString',
      Overwrite: false,
    });

    process.env.STAGE = 'prod';
    ssm.reset();
    ssm.on(GetParameterCommand).rejects(notFound);
    await expect(providerClientSecret('identity-provider-b')).rejects.toThrow(/not configured/);
    expect(ssm.commandCalls(PutParameterCommand)).toHaveLength(0);
  });
});

describe('ID token verification against the provider JWKS', () => {
  let key: CryptoKey;
  let jwk: JWK;
  let jwksFetches = 0;
  const realFetch = globalThis.fetch;
  const cfg = () => providerConfig('identity-provider-b');

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    key = pair.privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'idp-key', alg: 'ES256' };
  });
  beforeEach(() => {
    resetJwksCache();
    jwksFetches = 0;
    globalThis.fetch = (async (input: string | URL | Request) => {
      expect(String(input instanceof Request ? input.url : input)).toBe(cfg().jwksUri);
      jwksFetches++;
      return new Response(JSON.stringify({ keys: [jwk] }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof fetch;
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  const idToken = (
    claims: Record<string, unknown> = {},
    opts: { alg?: string; signer?: CryptoKey | Uint8Array; exp?: string } = {},
  ) =>
    new SignJWT({ nonce: 'n-1', email: 'a@example.com', email_verified: true, ...claims })
      .setProtectedHeader({ alg: opts.alg ?? 'ES256', kid: 'idp-key' })
      .setIssuer((claims.iss as string) ?? cfg().issuer)
      .setAudience((claims.aud as string) ?? cfg().clientId)
      .setSubject('sub-1')
      .setIssuedAt()
      .setExpirationTime(opts.exp ?? '5m')
      .sign(opts.signer ?? key);

  it('accepts a good token and caches the key set', async () => {
    const claims = await verifyIdToken(cfg(), await idToken());
    expect(claims).toMatchObject({ sub: 'sub-1', nonce: 'n-1', email: 'a@example.com' });
    await verifyIdToken(cfg(), await idToken());
    expect(jwksFetches).toBe(1);
  });

  it('rejects wrong issuer, audience, signer, algorithm, expiry or a missing nonce with 401 INVALID_ID_TOKEN', async () => {
    const other = (await generateKeyPair('ES256')).privateKey;
    const tokens = [
      await idToken({ iss: 'https://evil.example' }),
      await idToken({ aud: 'another-client' }),
      await idToken({}, { signer: other }),
      await idToken({}, { alg: 'HS256', signer: new TextEncoder().encode('k'.repeat(32)) }),
      await idToken({}, { exp: '-5m' }),
      await new SignJWT({ email: 'a@example.com' })
        .setProtectedHeader({ alg: 'ES256', kid: 'idp-key' })
        .setIssuer(cfg().issuer)
        .setAudience(cfg().clientId)
        .setSubject('s')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key),
    ];
    for (const token of tokens) {
      const err = await verifyIdToken(cfg(), token).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 401, code: 'INVALID_ID_TOKEN' });
    }
  });
});

describe('flow storage (DynamoDB mocked): a failed condition never passes unseen', () => {
  const mock = mockClient(DynamoDBDocumentClient);
  const conditionFailed = () => Object.assign(new Error('failed'), { name: 'ConditionalCheckFailedException' });
  beforeEach(() => {
    mock.reset();
    ddb.install(undefined);
    ddb();
  });
  afterEach(() => ddb.install(undefined));

  it('stores a new flow only under a state nobody holds, and refuses to hand out one that is taken', async () => {
    mock.on(PutCommand).resolves({});
    const started = await startFlow(providerConfig('identity-provider-b'), 'http://localhost:5173/auth/callback');
    expect(started.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mock.commandCalls(PutCommand)[0]!.args[0].input.ConditionExpression).toBe('attribute_not_exists(pk)');

    mock.on(PutCommand).rejects(conditionFailed());
    await expect(
      startFlow(providerConfig('identity-provider-b'), 'http://localhost:5173/auth/callback'),
    ).rejects.toThrow(/collision/);
  });

  it('consumes a flow once: a second consumer gets 400 INVALID_STATE', async () => {
    const flow = { stateHash: 'h' } as AuthorizationFlow;
    mock.on(DeleteCommand).resolves({});
    await expect(consumeFlow(flow)).resolves.toBeUndefined();
    mock.on(DeleteCommand).rejects(conditionFailed());
    await expect(consumeFlow(flow)).rejects.toMatchObject({ status: 400, code: 'INVALID_STATE' });
  });
});
