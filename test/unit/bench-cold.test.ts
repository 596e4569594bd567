import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floorClientPackages } from '#bench/cold-answer.ts';
import { pickColdRead } from '#bench/cold-phase.ts';
import type { ReadResult } from '#bench/reads.ts';
import { startSsmStandIn } from '#local/ssm-stand-in.ts';
import { memoryParameterStore } from '#local/memory-ports.ts';
import { createSsmClient, createSsmParameterStore } from '#shared/platform/aws-params.ts';
import type { ParameterStore } from '#shared/platform/ports.ts';

const read = (over: Partial<ReadResult>): ReadResult => ({
  routeId: 'x',
  group: 'catalog',
  path: '/api/x',
  kind: 'list',
  caller: 'TenantOwner',
  request: { method: 'GET', path: '/api/x', token: 't' },
  status: 200,
  requests: 1,
  capacity: 0.5,
  ssmReads: 0,
  cacheCold: null,
  commands: ['Query'],
  target: '',
  pass: true,
  ...over,
});

describe('the cold first answer: which request', () => {
  it('takes the GET by id over a cheaper list, and says nothing', () => {
    const reads = [
      read({ routeId: 'list', kind: 'list', requests: 1 }),
      read({ routeId: 'byId', kind: 'get-by-id', requests: 1 }),
    ];
    expect(pickColdRead(reads, 'catalog')).toEqual({ read: reads[1] });
  });

  it('without a GET by id, takes the cheapest authenticated GET and says so', () => {
    const reads = [
      read({ routeId: 'dear', kind: 'list', requests: 2 }),
      read({ routeId: 'cheap', kind: 'list', requests: 1 }),
      read({ routeId: 'static', kind: 'list', requests: 0 }),
    ];
    expect(pickColdRead(reads, 'catalog')).toEqual({
      read: reads[1],
      note: expect.stringMatching(/^no GET by id route: its cheapest authenticated GET \(list\)$/),
    });
    // A route that reads DynamoDB beats one that answers from code, whatever its kind.
    const config = read({ routeId: 'config', kind: 'other', requests: 1 });
    expect(pickColdRead([reads[2]!, config], 'catalog')?.read).toBe(config);
  });

  it('says which GET by id could not be read when it falls back', () => {
    const reads = [
      read({ routeId: 'public', kind: 'get-by-id', request: { method: 'GET', path: '/api/p' } }),
      read({ routeId: 'cheap', kind: 'list', requests: 1 }),
      read({ routeId: 'unseeded', kind: 'get-by-id', status: null, request: null }),
    ];
    expect(pickColdRead(reads, 'catalog')).toEqual({
      read: reads[1],
      note: expect.stringMatching(/^its GET by id \(public, unseeded\) found no seeded record: its cheapest/),
    });
  });

  it('falls back to an unauthenticated GET with a note, and to nothing when no GET answered', () => {
    const pub = read({ kind: 'other', request: { method: 'GET', path: '/api/health' } });
    expect(pickColdRead([pub], 'catalog')?.note).toEqual(expect.stringMatching(/unauthenticated/));
    expect(pickColdRead([read({ group: 'users' })], 'catalog')).toBeNull();
  });
});

describe('the cold first answer: the floor', () => {
  it("imports the clients the group's grants use beyond DynamoDB and SSM", () => {
    expect(floorClientPackages({ description: '', table: 'readwrite' })).toEqual([]);
    expect(
      floorClientPackages({
        description: '',
        table: 'readwrite',
        sends: ['email'],
        media: 'read',
        knowledgeVectors: 'read',
        bedrock: true,
      }),
    ).toEqual([
      '@aws-sdk/client-sqs',
      '@aws-sdk/client-s3',
      '@aws-sdk/client-s3vectors',
      '@aws-sdk/client-bedrock-runtime',
    ]);
  });
});

/** The function in the fresh process reads its keys with the real SSM client: the stand-in must speak its protocol. */
describe('the SSM stand-in the cold processes read their keys from', () => {
  let ssm: Awaited<ReturnType<typeof startSsmStandIn>>;
  let store: ParameterStore;

  beforeAll(async () => {
    ssm = await startSsmStandIn(
      memoryParameterStore({ '/saas/local/auth/jwt-public-jwks': '{"keys":[]}', '/saas/local/tenants/a/b': 'secret' }),
    );
    store = await createSsmParameterStore(
      createSsmClient({
        endpoint: ssm.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
        maxAttempts: 1,
      }),
    );
  });
  afterAll(() => ssm.close());

  it('answers GetParameter, ParameterNotFound and GetParametersByPath as SSM does', async () => {
    expect(await store.get('/saas/local/auth/jwt-public-jwks', { decrypt: false })).toEqual({
      value: '{"keys":[]}',
      version: 1,
    });
    expect(await store.get('/saas/local/none')).toBeNull();
    expect(await store.listByPath('/saas/local/tenants')).toEqual([
      expect.objectContaining({ name: '/saas/local/tenants/a/b', value: 'secret', version: 1 }),
    ]);
  });
});
