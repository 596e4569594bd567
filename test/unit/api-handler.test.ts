import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { PassThrough } from 'node:stream';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { SignJWT, generateKeyPair } from 'jose';
import * as z from 'zod/mini';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lambdaContext, toApiGatewayEvent } from '#local/apigw-event.ts';
import { memoryParameterStore } from '#local/memory-ports.ts';
import { issueAccessToken } from '#shared/auth/access-token.ts';
import { generateSigningKeyParams, resetKeyCache, signingParams } from '#shared/auth/signing-keys.ts';
import { conflict } from '#shared/http/errors.ts';
import { reply } from '#shared/http/responses.ts';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { parameterStore } from '#shared/platform/ports.ts';
import { paging, text, uuid } from '#shared/routes/schemas.ts';
import { defineRoutes, scope } from '#shared/routes/types.ts';
import { afterAnswer } from '#shared/runtime/after-answer.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { sseEvent, streamFrontDoor } from '#shared/runtime/stream.ts';

// A trivial route table around which every middleware of the runtime is exercised.
const routes = defineRoutes([
  {
    id: 'open',
    method: 'GET',
    path: '/open',
    group: 'system',
    auth: { kind: 'none' },
    scope: { kind: 'public' },
    summary: '',
    status: 200,
  },
  {
    id: 'things.create',
    method: 'POST',
    path: '/things/{thingId}',
    group: 'system',
    auth: { kind: 'bearer', permission: 'suppliers:write' },
    scope: { kind: 'account' },
    summary: '',
    status: 201,
    schemas: () => ({
      params: z.object({ thingId: uuid() }),
      query: z.object({ ...paging() }),
      body: z.object({ name: text(10) }),
    }),
    maxBodyBytes: 1024,
  },
  {
    id: 'owner',
    method: 'GET',
    path: '/owner',
    group: 'system',
    auth: { kind: 'bearer', roles: ['TenantOwner'] },
    scope: { kind: 'account' },
    summary: '',
    status: 200,
  },
  {
    id: 'boom',
    method: 'GET',
    path: '/boom',
    group: 'system',
    auth: { kind: 'none' },
    scope: { kind: 'public' },
    summary: '',
    status: 200,
  },
  {
    id: 'throttled',
    method: 'GET',
    path: '/throttled',
    group: 'system',
    auth: { kind: 'none' },
    scope: { kind: 'public' },
    summary: '',
    status: 200,
  },
  {
    id: 'taken',
    method: 'GET',
    path: '/taken',
    group: 'system',
    auth: { kind: 'none' },
    scope: { kind: 'public' },
    summary: '',
    status: 200,
    // A 409 on a GET is beyond what the definition implies: declared, or strict mode makes it a 500.
    errors: [conflict],
  },
  {
    id: 'limited',
    method: 'GET',
    path: '/limited',
    group: 'system',
    auth: { kind: 'none' },
    scope: { kind: 'public' },
    summary: '',
    status: 200,
    rateLimit: { name: 'unit', limit: 5, windowSeconds: 60 },
  },
  {
    id: 'internal',
    method: 'GET',
    path: '/internal',
    group: 'system',
    auth: { kind: 'internalKey' },
    scope: { kind: 'platform' },
    summary: '',
    status: 200,
  },
  {
    id: 'shaped',
    method: 'GET',
    path: '/shaped',
    group: 'system',
    auth: { kind: 'none' },
    scope: { kind: 'public' },
    summary: '',
    status: 200,
    schemas: () => ({
      response: z.object({
        id: z.string(),
        items: z.array(z.object({ name: z.string() })),
        note: z.nullable(z.string()),
      }),
    }),
  },
  {
    id: 'drifted',
    method: 'GET',
    path: '/drifted',
    group: 'system',
    auth: { kind: 'none' },
    scope: { kind: 'public' },
    summary: '',
    status: 200,
    schemas: () => ({ response: z.object({ id: z.string() }) }),
  },
  {
    id: 'gone',
    method: 'DELETE',
    path: '/gone',
    group: 'system',
    auth: { kind: 'none' },
    scope: { kind: 'public' },
    summary: '',
    status: 204,
  },
  {
    id: 'mine',
    method: 'GET',
    path: '/mine',
    group: 'system',
    auth: { kind: 'bearer', permission: 'suppliers:read' },
    scope: scope.tenant({ tenantFrom: 'query' }),
    summary: '',
    status: 200,
    schemas: () => ({ query: z.object({ tenantId: z.optional(uuid()) }) }),
  },
  {
    id: 'ticks',
    method: 'GET',
    path: '/ticks',
    group: 'system',
    auth: { kind: 'none' },
    scope: { kind: 'public' },
    summary: '',
    status: 200,
    transport: 'stream',
  },
  {
    id: 'settles',
    method: 'POST',
    path: '/settles',
    group: 'system',
    auth: { kind: 'none' },
    scope: { kind: 'public' },
    summary: '',
    status: 200,
    transport: 'stream',
    rawResponse: { contentType: 'text/plain' },
  },
]);

/** The work the 'settles' route leaves for after its answer; the test decides when it ends. */
let releaseSettle: () => void = () => undefined;
let settled = false;

const handler = apiHandler(
  routes,
  {
    open: async () => ({ hello: 'world' }),
    'things.create': async ({ params, query, body, principal }) => ({
      ...params,
      ...query,
      ...body,
      by: principal.userId,
    }),
    owner: async () => null,
    boom: async () => {
      throw new Error('secret internal detail at /var/task/index.mjs:1');
    },
    throttled: async () => {
      throw Object.assign(new Error('Rate exceeded for arn:aws:dynamodb:...'), { name: 'ThrottlingException' });
    },
    taken: async () => {
      throw conflict('Slug taken');
    },
    limited: async () => 'fine',
    internal: async () => 'inside',
    shaped: async () => ({ id: 'a', pk: 'T#SECRET', items: [{ name: 'n', sk: 'ITEM', gsi1pk: 'x' }], note: null }),
    // A mapper that drifted from the documented shape: the type check would refuse it, so force it.
    drifted: async () => ({ identifier: 'a' }) as unknown as { id: string },
    gone: async () => undefined,
    mine: async ({ tenantId }) => ({ tenantId }),
    settles: async () => {
      afterAnswer(
        () =>
          new Promise<void>((resolve) => {
            releaseSettle = () => {
              settled = true;
              resolve();
            };
          }),
      );
      return reply.raw('text/plain', 'answered');
    },
    ticks: async () =>
      reply.stream(
        (async function* () {
          for (let n = 1; n <= 3; n++) yield sseEvent({ n }, 'tick');
        })(),
      ),
  },
  { tenants: tenantDirectory },
);

const match = createRouteMatcher(routes);
async function call(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string; query?: string; ip?: string } = {},
) {
  const found = match(method, path);
  const event = toApiGatewayEvent(
    { method, path, rawQuery: init.query, headers: init.headers, body: init.body, sourceIp: init.ip },
    found.kind === 'route' ? found : null,
  );
  if (found.kind !== 'route') event.routeKey = `${method} ${path}`;
  const res = await handler(event, lambdaContext('unit'));
  return { status: res.statusCode, headers: res.headers ?? {}, json: res.body ? JSON.parse(res.body) : undefined };
}

const json = (body: unknown, token?: string) => ({
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  body: JSON.stringify(body),
});

const tenantId = crypto.randomUUID();
const thing = crypto.randomUUID();
let writer: string;
let reader: string;

beforeAll(async () => {
  const params = await generateSigningKeyParams();
  const names = signingParams();
  parameterStore.install(
    memoryParameterStore({ [names.publicJwks]: params.publicJwks, [names.privateJwk]: params.privateJwk }),
  );
  resetKeyCache();
  const base = { userId: 'u-1', tenantId, email: 'a@example.com' };
  writer = (await issueAccessToken({ ...base, roles: ['Custom'], permissions: ['suppliers:write'] })).accessToken;
  reader = (await issueAccessToken({ ...base, roles: ['TenantMember'], permissions: ['suppliers:read'] })).accessToken;
});

describe('runtime pipeline', () => {
  it('wraps results in the success envelope', async () => {
    const res = await call('GET', '/open');
    expect(res).toMatchObject({ status: 200, json: { success: true, result: { hello: 'world' } } });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('passes parsed params, query and body to the handler, dropping unknown fields', async () => {
    const res = await call('POST', `/things/${thing}`, {
      ...json({ name: ' Bolt ', isSystem: true }, writer),
      query: 'page=2',
    });
    expect(res.status).toBe(201);
    expect(res.json.result).toEqual({ thingId: thing, page: 2, pageSize: 20, name: 'Bolt', by: 'u-1' });
  });

  it('answers an unknown route key with ROUTE_NOT_FOUND', async () => {
    const res = await call('GET', '/nowhere');
    expect(res).toMatchObject({ status: 404, json: { success: false, error: { code: 'ROUTE_NOT_FOUND' } } });
  });

  it('authenticates before validating: no token is 401 even with a bad body', async () => {
    const res = await call('POST', `/things/not-a-uuid`, {
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('UNAUTHORIZED');
  });

  it('rejects a token without the permission or role with 403', async () => {
    expect((await call('POST', `/things/${thing}`, json({ name: 'x' }, reader))).status).toBe(403);
    expect((await call('GET', '/owner', { headers: { authorization: `Bearer ${writer}` } })).status).toBe(403);
  });

  it('rejects alg none, foreign keys, wrong audience and expired tokens with 401', async () => {
    const header = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const claims = {
      sub: 'u-1',
      tid: tenantId,
      roles: ['TenantOwner'],
      perms: ['suppliers:write'],
      iss: config.issuer,
      aud: config.audience,
      jti: 'j',
      exp: Math.floor(Date.now() / 1000) + 600,
    };
    const none = `${header({ alg: 'none', typ: 'JWT' })}.${header(claims)}.`;
    const { privateKey } = await generateKeyPair('ES256');
    const sign = (c: object, kid = 'other') =>
      new SignJWT(c as never).setProtectedHeader({ alg: 'ES256', kid }).sign(privateKey);
    const foreign = await sign(claims);
    const realKid = JSON.parse(Buffer.from(writer.split('.')[0]!, 'base64url').toString()).kid as string;
    const foreignWithRealKid = await sign(claims, realKid);
    const wrongAudience = (
      await issueAccessToken({
        userId: 'u',
        tenantId,
        roles: ['TenantOwner'],
        permissions: ['suppliers:write'],
        email: 'x@y.z',
      })
    ).accessToken;
    const expired = (
      await issueAccessToken(
        { userId: 'u', tenantId, roles: ['TenantOwner'], permissions: ['suppliers:write'], email: 'x@y.z' },
        -10,
      )
    ).accessToken;
    process.env.JWT_AUDIENCE = 'another-api';
    const wrongAud = await call('POST', `/things/${thing}`, json({ name: 'x' }, wrongAudience));
    delete process.env.JWT_AUDIENCE;
    for (const token of [none, foreign, foreignWithRealKid, expired, 'abc.def.ghi']) {
      const res = await call('POST', `/things/${thing}`, json({ name: 'x' }, token));
      expect(res.status, token.slice(0, 20)).toBe(401);
    }
    expect(wrongAud.status).toBe(401);
  });

  it('separates malformed JSON (400), wrong content type (415) and oversize bodies (413)', async () => {
    const auth = { authorization: `Bearer ${writer}` };
    const bad = await call('POST', `/things/${thing}`, {
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"name":',
    });
    expect(bad.json.error.code).toBe('INVALID_JSON');
    const text = await call('POST', `/things/${thing}`, {
      headers: { ...auth, 'content-type': 'text/plain' },
      body: 'hi',
    });
    expect(text).toMatchObject({ status: 415, json: { error: { code: 'UNSUPPORTED_MEDIA_TYPE' } } });
    const big = await call('POST', `/things/${thing}`, json({ name: 'x', pad: 'y'.repeat(2000) }, writer));
    expect(big).toMatchObject({ status: 413, json: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
  });

  it('lists every validation issue with its path', async () => {
    const res = await call('POST', '/things/nope', {
      ...json({ name: 'much too long name' }, writer),
      query: 'page=0',
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_ERROR');
    expect(res.json.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'body.name',
      'params.thingId',
      'query.page',
    ]);
  });

  it('hides unexpected errors behind a generic 500', async () => {
    const res = await call('GET', '/boom');
    expect(res.status).toBe(500);
    expect(res.json).toEqual({
      success: false,
      error: { code: 'INTERNAL_ERROR', message: 'An unexpected error occurred' },
    });
  });

  it('turns AWS throttling into 503 with Retry-After, and domain conflicts into 409', async () => {
    const throttled = await call('GET', '/throttled');
    expect(throttled.status).toBe(503);
    expect(throttled.headers['retry-after']).toBe('1');
    expect(JSON.stringify(throttled.json)).not.toMatch(/arn:aws/);
    expect((await call('GET', '/taken')).json.error).toEqual({ code: 'CONFLICT', message: 'Slug taken' });
  });

  it('checks the internal API key in constant time and refuses a wrong one', async () => {
    expect((await call('GET', '/internal')).status).toBe(401);
    expect((await call('GET', '/internal', { headers: { 'x-internal-api-key': 'nope' } })).status).toBe(401);
    const res = await call('GET', '/internal', { headers: { 'x-internal-api-key': process.env.INTERNAL_API_KEY! } });
    expect(res.json.result).toBe('inside');
  });
});

describe('rate limit middleware', () => {
  const mock = mockClient(DynamoDBDocumentClient);
  beforeEach(() => mock.reset());

  it('counts per source IP in DynamoDB and answers 429 with Retry-After past the limit', async () => {
    ddb();
    mock
      .on(UpdateCommand)
      .resolvesOnce({ Attributes: { hits: 5 } })
      .resolvesOnce({ Attributes: { hits: 6 } });
    expect((await call('GET', '/limited', { ip: '10.0.0.7' })).status).toBe(200);
    const res = await call('GET', '/limited', { ip: '10.0.0.7' });
    expect(res.status).toBe(429);
    expect(res.json.error.code).toBe('RATE_LIMITED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    const sent = mock.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(sent.Key!.pk).toBe('RATE#unit#10.0.0.7');
    expect(sent.UpdateExpression).toMatch(/ADD hits :one/);
  });
});

describe('results, status and shape', () => {
  it("sends a returned value with the route's declared status (201 here), and 204 with no body", async () => {
    const created = await call('POST', `/things/${thing}`, json({ name: 'Bolt' }, writer));
    expect(created.status).toBe(201);
    const gone = await call('DELETE', '/gone');
    expect(gone).toMatchObject({ status: 204, json: undefined });
  });

  it('strips every field the response schema does not name, at any depth (storage keys never leak)', async () => {
    const res = await call('GET', '/shaped');
    expect(res.json.result).toEqual({ id: 'a', items: [{ name: 'n' }], note: null });
  });

  it('under test (STRICT_RESPONSES=1) an answer that breaks its schema is a 500, logged with the route', async () => {
    expect(process.env.STRICT_RESPONSES).toBe('1');
    const res = await call('GET', '/drifted');
    expect(res.status).toBe(500);
    expect(JSON.stringify(res.json)).not.toMatch(/identifier/);
  });
});

describe('declared tenant scope', () => {
  const mock = mockClient(DynamoDBDocumentClient);
  beforeEach(() => mock.reset());
  const bearer = (token: string, query?: string) => ({ headers: { authorization: `Bearer ${token}` }, query });

  it("hands the handler the caller's own tenant, refuses another tenant (403) and asks a SystemAdmin to name one", async () => {
    ddb();
    expect((await call('GET', '/mine', bearer(reader))).json.result).toEqual({ tenantId });
    const other = await call('GET', '/mine', bearer(reader, `tenantId=${crypto.randomUUID()}`));
    expect(other.status).toBe(403);
    const admin = (
      await issueAccessToken({
        userId: 'adm',
        tenantId: null,
        roles: ['SystemAdmin'],
        permissions: [],
        email: 'a@x.io',
      })
    ).accessToken;
    const unnamed = await call('GET', '/mine', bearer(admin));
    expect(unnamed).toMatchObject({ status: 400, json: { error: { details: [{ path: 'query.tenantId' }] } } });
    const named = crypto.randomUUID();
    mock.on(GetCommand).resolves({ Item: { pk: 'PLATFORM#TENANT' } });
    const res = await call('GET', '/mine', bearer(admin, `tenantId=${named.toUpperCase()}`));
    expect(res.json.result).toEqual({ tenantId: named });
    mock.on(GetCommand).resolves({});
    expect((await call('GET', '/mine', bearer(admin, `tenantId=${named}`))).status).toBe(404);
  });
});

describe('streaming transport', () => {
  it('collects a streamed answer on the buffered path (API Gateway), events intact', async () => {
    const res = await handler(
      toApiGatewayEvent(
        { method: 'GET', path: '/ticks' },
        { route: routes.find((r) => r.id === 'ticks')!, params: {} },
      ),
      lambdaContext('unit'),
    );
    expect(res.headers?.['content-type']).toMatch(/^text\/event-stream/);
    expect(res.body).toBe([1, 2, 3].map((n) => `event: tick\ndata: {"n":${n}}\n\n`).join(''));
  });

  it('writes each event as it is produced on the front door, matching the route itself', async () => {
    const door = streamFrontDoor(handler, routes);
    const sink = Object.assign(new PassThrough(), {
      head: undefined as unknown,
      writeHead(status: number, headers: Record<string, string>) {
        this.head = { status, headers };
      },
    });
    const chunks: string[] = [];
    sink.on('data', (c: Buffer) => chunks.push(c.toString()));
    const event = toApiGatewayEvent({ method: 'GET', path: '/ticks' }, null);
    await door(event, sink, lambdaContext('unit'));
    expect(sink.head).toMatchObject({
      status: 200,
      headers: { 'content-type': expect.stringMatching(/event-stream/) },
    });
    expect(chunks).toEqual([1, 2, 3].map((n) => `event: tick\ndata: {"n":${n}}\n\n`));
    const missing = Object.assign(new PassThrough(), { writeHead: () => undefined });
    const body: string[] = [];
    missing.on('data', (c: Buffer) => body.push(c.toString()));
    await door(toApiGatewayEvent({ method: 'GET', path: '/open' }, null), missing, lambdaContext('unit'));
    expect(JSON.parse(body.join('')).error.code).toBe('ROUTE_NOT_FOUND');
  });
});

describe('work after the answer', () => {
  const tick = () => new Promise((r) => setTimeout(r, 20));

  it('the front door ends the answer first, and returns only once the work is done', async () => {
    settled = false;
    const door = streamFrontDoor(handler, routes);
    const sink = Object.assign(new PassThrough(), { writeHead: () => undefined });
    const body: string[] = [];
    sink.on('data', (c: Buffer) => body.push(c.toString()));
    const ended = new Promise((r) => sink.on('end', r));
    let returned = false;
    const run = door(toApiGatewayEvent({ method: 'POST', path: '/settles' }, null), sink, lambdaContext('unit')).then(
      () => {
        returned = true;
      },
    );
    await ended;
    expect(body.join('')).toBe('answered');
    await tick();
    expect([settled, returned]).toEqual([false, false]);
    releaseSettle();
    await run;
    expect([settled, returned]).toEqual([true, true]);
  });

  it('the buffered handler (API Gateway sends nothing before it returns) returns after the work', async () => {
    settled = false;
    let returned = false;
    const found = match('POST', '/settles');
    const event = toApiGatewayEvent({ method: 'POST', path: '/settles' }, found.kind === 'route' ? found : null);
    const run = handler(event, lambdaContext('unit')).then((res) => {
      returned = true;
      return res;
    });
    await tick();
    expect(returned).toBe(false);
    releaseSettle();
    expect((await run).body).toBe('answered');
    expect(settled).toBe(true);
  });
});

describe('settings', () => {
  it('a deployed function without a setting its group needs fails at start, not with a local default', () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'saas-prod-catalog';
    try {
      expect(() =>
        apiHandler(defineRoutes([{ ...routes.find((r) => r.id === 'open')!, id: 'x', group: 'catalog' }]), {
          x: async () => null,
        }),
      ).toThrow(/TABLE_NAME/);
    } finally {
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    }
  });
});
