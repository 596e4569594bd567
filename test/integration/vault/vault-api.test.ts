import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { keys } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { parameterStore, type ParameterStore } from '#shared/platform/ports.ts';
import { logger } from '#shared/runtime/logger.ts';
import { createJob, vaultKeys } from '#areas/vault/records.ts';
import { resetVaultCache } from '#areas/vault/store.ts';
import { runVaultSync } from '#areas/vault/sync.ts';
import { invoke } from '#test/support/invoke.ts';
import { testParams } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';

const KEY = { 'x-internal-api-key': 'test-internal-key' };
const vaultName = (env: string, key: string) => `/saas/local/vault/${env}/${key}`;
const sourceName = (env: string, key: string) => `/saas/local/vault-sources/${env}/${key}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Every plain value any test writes; none may appear in a log line, an audit entry or an event.
const SECRETS = new Set<string>();
const secret = (label: string) => {
  const value = `${label}-${crypto.randomUUID()}`;
  SECRETS.add(value);
  return value;
};

let admin: string;
let owner: string;
const logged: unknown[][] = [];

beforeAll(async () => {
  admin = await tokenFor({ role: 'SystemAdmin' });
  owner = await tokenFor({ role: 'TenantOwner' });
  for (const level of ['debug', 'info', 'warn', 'error'] as const) {
    vi.spyOn(logger, level).mockImplementation((...args: unknown[]) => void logged.push(args));
  }
});
afterAll(() => vi.restoreAllMocks());
beforeEach(() => resetVaultCache());

/** The attributes the tests read: the JSON-encoded `changes` and `data` are present on the entries they parse. */
interface AuditEntry {
  entityType: string;
  entityId: string;
  action: string;
  changes: string;
}
interface IntegrationEvent {
  eventType: string;
  data: string;
}

async function platformItems<T>(collection: 'AUDIT' | 'INTEGRATION_EVENT') {
  const out = await ddb().send(
    new QueryCommand({
      TableName: config.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.platformCollection(collection) },
      ScanIndexForward: false,
    }),
  );
  return (out.Items ?? []) as T[];
}
const audits = () => platformItems<AuditEntry>('AUDIT');
const integrationEvents = () => platformItems<IntegrationEvent>('INTEGRATION_EVENT');

const put = (env: string, key: string, value: unknown) =>
  invoke('PUT', `/api/secrets/${env}/${key}`, { headers: KEY, body: { value } });
const get = (env: string, key: string) => invoke('GET', `/api/secrets/${env}/${key}`, { headers: KEY });

describe('internal API key', () => {
  const routes: [string, string, string?][] = [
    ['GET', '/api/secrets/prod/K'],
    ['GET', '/api/secrets/prod'],
    ['PUT', '/api/secrets/prod/K'],
    ['DELETE', '/api/secrets/prod/K', 'admin'],
    ['POST', '/api/secrets/sync/prod', 'admin'],
  ];

  it.each(routes)('%s %s is 401 without the key, even with a SystemAdmin token', async (method, path) => {
    const res = await invoke(method, path, { token: admin, body: method === 'PUT' ? { value: 'x' } : undefined });
    expect(res).toAnswer(401);
    expect(res.json).toEqual({
      success: false,
      error: { code: 'UNAUTHORIZED', message: 'Missing or invalid internal API key' },
    });
  });

  /** Refusals are audited per source address: each test refuses from an address of its own. */
  const refusalsOf = async (ip: string) =>
    (await audits()).filter(
      (a) => a.entityType === 'SecretAccess' && a.entityId === ip && a.action === 'access.denied',
    );

  it('audits a missing key', async () => {
    const ip = '198.51.100.11';
    const res = await invoke('GET', '/api/secrets/audit-missing/K', { ip });
    expect(res).toAnswer(401);

    const [entry] = await refusalsOf(ip);
    expect(entry).toMatchObject({ entityType: 'SecretAccess', entityId: ip, action: 'access.denied', userId: null });
    expect(JSON.parse(entry!.changes)).toMatchObject({
      reason: 'missing-internal-key',
      status: 401,
      route: 'vault.get',
      method: 'GET',
      refusals: 1,
    });
  });

  it('audits a wrong key without the key that was sent', async () => {
    const ip = '198.51.100.12';
    const wrong = `wrong-${crypto.randomUUID()}`;
    const res = await invoke('GET', '/api/secrets/audit-wrong', { headers: { 'x-internal-api-key': wrong }, ip });
    expect(res).toAnswer(401);
    expect(res.text).not.toContain(wrong);

    const [entry] = await refusalsOf(ip);
    expect(JSON.parse(entry!.changes)).toMatchObject({ reason: 'invalid-internal-key', route: 'vault.list' });
    expect(JSON.stringify(await audits())).not.toContain(wrong);
  });

  it('aggregates a flood of refusals per source (1st, 10th, 100th of the hour) and keeps no text the caller chose', async () => {
    const ip = '198.51.100.13';
    const chosen = `chosen-${crypto.randomUUID().slice(0, 8)}`;
    const now = vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 0, 1, 10, 30));
    try {
      for (let batch = 0; batch < 6; batch++) {
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            invoke('GET', `/api/secrets/${chosen}-${batch}-${i}/${chosen}`, {
              headers: { 'x-internal-api-key': chosen },
              ip,
            }),
          ),
        );
        expect(answers.map((a) => a.status)).toEqual(Array(20).fill(401));
      }
      // Another source is audited on its own.
      expect(await invoke('GET', `/api/secrets/${chosen}`, { ip: '198.51.100.14' })).toAnswer(401);
    } finally {
      now.mockRestore();
    }
    const entries = await refusalsOf(ip);
    expect(entries.map((e) => JSON.parse(e.changes).refusals).sort((a, b) => a - b)).toEqual([1, 10, 100]);
    expect(JSON.parse(entries[0]!.changes)).toMatchObject({
      reason: 'invalid-internal-key',
      route: 'vault.get',
      windowStart: '2026-01-01T10:00:00.000Z',
      windowSeconds: 3600,
    });
    expect(await refusalsOf('198.51.100.14')).toHaveLength(1);
    expect(JSON.stringify(await audits())).not.toContain(chosen);
  });
});

describe('PUT and GET one', () => {
  it('creates, reads back the plain value, then overwrites as a new version', async () => {
    const first = secret('db');
    const created = await put('prod', 'DB_URL', first);
    expect(created).toAnswer(200);
    expect(created.json).toEqual({
      success: true,
      result: {
        environment: 'prod',
        key: 'DB_URL',
        version: 1,
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    });
    expect(created.text).not.toContain(first);

    const read = await get('prod', 'DB_URL');
    expect(read).toAnswer(200);
    expect(read.json.result).toEqual({ environment: 'prod', key: 'DB_URL', value: first, version: 1 });
    expect(read.headers['cache-control']).toBe('no-store');

    const second = secret('db2');
    expect((await put('prod', 'DB_URL', second)).json.result.version).toBe(2);
    expect((await get('prod', 'DB_URL')).json.result).toMatchObject({ value: second, version: 2 });
    expect(await testParams.get(vaultName('prod', 'DB_URL'))).toEqual({ value: second, version: 2 });

    const entries = (await audits()).filter((a) => a.entityId === 'prod/DB_URL');
    expect(entries.map((a) => a.action).sort()).toEqual(['create', 'update']);
    expect(JSON.parse(entries[0]!.changes)).toMatchObject({ environment: 'prod', via: 'internal-api-key' });
  });

  it('is 404 for a key never written', async () => {
    const res = await get('prod', 'NEVER_WRITTEN');
    expect(res).toAnswer(404, 'NOT_FOUND');
  });

  it.each([
    ['an upper-case environment', 'Prod', 'K', 'params.environment'],
    ['an environment over 32 characters', 'e'.repeat(33), 'K', 'params.environment'],
    ['a key with a forbidden character', 'prod', 'bad!key', 'params.key'],
    ['a key over 128 characters', 'prod', 'k'.repeat(129), 'params.key'],
    ['the key ..', 'prod', '..', 'params.key'],
  ])('rejects %s with 400 VALIDATION_ERROR', async (_what, env, key, path) => {
    const res = await get(env, key);
    expect(res).toAnswer(400, 'VALIDATION_ERROR');
    expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it.each([
    ['an empty value', ''],
    ['a missing value', undefined],
    ['a non-string value', 42],
    ['the delete marker', '__deleted__'],
  ])('rejects %s with 400 VALIDATION_ERROR', async (_what, value) => {
    const res = await invoke('PUT', '/api/secrets/prod/V', {
      headers: KEY,
      body: value === undefined ? {} : { value },
    });
    expect(res).toAnswer(400, 'VALIDATION_ERROR');
    expect(await testParams.get(vaultName('prod', 'V'))).toBeNull();
  });

  it('counts the 4 KB limit in UTF-8 bytes: over is 413 and the message never quotes the value', async () => {
    const justFits = 'é'.repeat(2048); // 4096 bytes
    expect(await put('prod', 'LIMIT', justFits)).toAnswer(200);
    expect((await get('prod', 'LIMIT')).json.result.value).toBe(justFits);

    const tooBig = `${secret('big')}${'é'.repeat(2048)}`;
    const res = await put('prod', 'TOO_BIG', tooBig);
    expect(res).toAnswer(413);
    expect(res.json.error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'Secret value exceeds 4096 bytes' });
    expect(await testParams.get(vaultName('prod', 'TOO_BIG'))).toBeNull();
  });

  it('answers a body far over the route limit with 413 before parsing', async () => {
    const res = await invoke('PUT', '/api/secrets/prod/HUGE', {
      headers: KEY,
      rawBody: JSON.stringify({ value: 'x'.repeat(40_000) }),
    });
    expect(res).toAnswer(413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('GET an environment', () => {
  it('lists every key ordered by key, masks every value and flags deleted keys', async () => {
    const values = [secret('b'), secret('a'), secret('c')];
    await put('listing', 'beta', values[0]);
    await put('listing', 'alpha', values[1]);
    await put('listing', 'gamma', values[2]);
    await put('listing-other', 'alpha', secret('other'));
    expect(await invoke('DELETE', '/api/secrets/listing/gamma', { headers: KEY, token: admin })).toAnswer(204);

    const res = await invoke('GET', '/api/secrets/listing', { headers: KEY });

    expect(res).toAnswer(200);
    expect(res.json.result).toEqual({
      environment: 'listing',
      totalCount: 3,
      items: [
        { key: 'alpha', value: '***', version: 1, updatedAt: expect.any(String), deleted: false },
        { key: 'beta', value: '***', version: 1, updatedAt: expect.any(String), deleted: false },
        { key: 'gamma', value: '***', version: 2, updatedAt: expect.any(String), deleted: true },
      ],
    });
    for (const v of values) expect(res.text).not.toContain(v);
    expect(res.text).not.toContain('__deleted__');
  });

  it('lists every key of a large environment (paging itself is proven against the SSM client)', async () => {
    for (let i = 0; i < 23; i++) await testParams.put(vaultName('many', `k${String(i).padStart(2, '0')}`), `v${i}`);
    const res = await invoke('GET', '/api/secrets/many', { headers: KEY });
    expect(res.json.result.totalCount).toBe(23);
    expect(res.json.result.items.at(-1).key).toBe('k22');
  });

  it('answers an environment without secrets with an empty list', async () => {
    const res = await invoke('GET', '/api/secrets/empty-env', { headers: KEY });
    expect(res).toAnswer(200);
    expect(res.json.result).toEqual({ environment: 'empty-env', items: [], totalCount: 0 });
  });
});

describe('DELETE', () => {
  it('needs a bearer token (401) of a SystemAdmin (403), and audits both refusals', async () => {
    await put('del', 'K', secret('k'));

    const anonymous = await invoke('DELETE', '/api/secrets/del/K', { headers: KEY, ip: '198.51.100.21' });
    expect(anonymous).toAnswer(401);
    const tenantOwner = await invoke('DELETE', '/api/secrets/del/K', {
      headers: KEY,
      token: owner,
      ip: '198.51.100.22',
    });
    expect(tenantOwner).toAnswer(403, 'FORBIDDEN');
    const wrongKey = await invoke('DELETE', '/api/secrets/del/K', {
      headers: { 'x-internal-api-key': 'nope' },
      token: admin,
      ip: '198.51.100.23',
    });
    expect(wrongKey).toAnswer(401);

    expect(await get('del', 'K')).toAnswer(200);
    const reasons = (await audits())
      .filter((a) => a.entityType === 'SecretAccess' && /^198\.51\.100\.2[123]$/.test(a.entityId))
      .map((a) => JSON.parse(a.changes))
      .filter((c) => c.route === 'vault.delete')
      .map((c) => c.reason)
      .sort();
    expect(reasons).toEqual(['invalid-bearer-token', 'invalid-internal-key', 'not-system-admin']);
  });

  it('replaces the value with the marker: the key then reads 404 and lists as deleted; a PUT restores it', async () => {
    const value = secret('gone');
    await put('del', 'GONE', value);
    expect(await get('del', 'GONE')).toAnswer(200); // cached now: the delete must invalidate it

    const res = await invoke('DELETE', '/api/secrets/del/GONE', { headers: KEY, token: admin });
    expect(res).toAnswer(204);
    expect(res.text).toBe('');

    expect(await testParams.get(vaultName('del', 'GONE'))).toEqual({ value: '__deleted__', version: 2 });
    expect(await get('del', 'GONE')).toAnswer(404);
    const listed = (await invoke('GET', '/api/secrets/del', { headers: KEY })).json.result.items;
    expect(listed.find((i: { key: string }) => i.key === 'GONE')).toMatchObject({ deleted: true, value: '***' });
    expect(await invoke('DELETE', '/api/secrets/del/GONE', { headers: KEY, token: admin })).toAnswer(404);
    expect(await invoke('DELETE', '/api/secrets/del/NEVER', { headers: KEY, token: admin })).toAnswer(404);

    const entry = (await audits()).find((a) => a.entityId === 'del/GONE' && a.action === 'delete');
    expect(entry).toMatchObject({ userName: 'systemadmin@example.com', entityType: 'Secret' });

    const back = secret('back');
    expect((await put('del', 'GONE', back)).json.result.version).toBe(3);
    expect((await get('del', 'GONE')).json.result.value).toBe(back);
  });
});

describe('read cache', () => {
  it('serves a read for up to 30 s; a write through the API invalidates it at once', async () => {
    const v1 = secret('v1');
    await put('cache', 'K', v1);
    expect((await get('cache', 'K')).json.result.value).toBe(v1);

    // Another function instance writes: this instance keeps its cached copy until the TTL ends.
    const v2 = secret('v2');
    await testParams.put(vaultName('cache', 'K'), v2);
    expect((await get('cache', 'K')).json.result.value).toBe(v1);

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 30_001 });
    try {
      expect((await get('cache', 'K')).json.result.value).toBe(v2);
    } finally {
      vi.useRealTimers();
    }

    const v3 = secret('v3');
    await put('cache', 'K', v3);
    expect((await get('cache', 'K')).json.result.value).toBe(v3);
  });
});

describe('POST /api/secrets/sync/{environment}', () => {
  it('needs the key (401) and a SystemAdmin (403)', async () => {
    expect(await invoke('POST', '/api/secrets/sync/prod', { token: admin })).toAnswer(401);
    expect(await invoke('POST', '/api/secrets/sync/prod', { headers: KEY })).toAnswer(401);
    expect(await invoke('POST', '/api/secrets/sync/prod', { headers: KEY, token: owner })).toAnswer(403);
    expect(await invoke('POST', '/api/secrets/sync/Bad_Env', { headers: KEY, token: admin })).toAnswer(400);
  });

  it('imports the sources, never overwriting a newer vault value, and records the outcome', async () => {
    const env = 'staging';
    // t0: values already in the vault.
    await put(env, 'STALE', secret('stale-old'));
    const same = secret('same');
    await put(env, 'SAME', same);
    await sleep(5);
    // t1: what the deployment provides.
    const fresh = secret('new');
    const staleNew = secret('stale-new');
    await testParams.put(sourceName(env, 'NEW'), fresh);
    await testParams.put(sourceName(env, 'STALE'), staleNew);
    await testParams.put(sourceName(env, 'SAME'), same);
    await testParams.put(sourceName(env, 'NEWER'), secret('newer-source'));
    await testParams.put(sourceName(env, 'nested/KEY'), secret('nested'));
    await testParams.put(sourceName(env, 'TOO_BIG'), 'x'.repeat(4097));
    await sleep(5);
    // t2: written through the API after the source: the vault's value is newer.
    const apiValue = secret('newer-api');
    await put(env, 'NEWER', apiValue);
    expect(await get(env, 'STALE')).toAnswer(200); // cached: the job's writes must not be hidden by it

    const res = await invoke('POST', `/api/secrets/sync/${env}`, { headers: KEY, token: admin });

    expect(res).toAnswer(202);
    expect(res.json).toEqual({
      success: true,
      result: { jobId: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'queued' },
    });
    const { jobId } = res.json.result;

    // The test queue runs the real jobs worker before enqueue resolves.
    const job = (await ddb().send(new GetCommand({ TableName: config.tableName, Key: vaultKeys.job(jobId) }))).Item!;
    expect(job).toMatchObject({ id: jobId, type: 'vault.sync', environment: env, status: 'completed' });
    expect(job.result).toMatchObject({ imported: 2, skipped: 2, failed: 2 });
    expect([...job.result.failures].sort((a, b) => a.key.localeCompare(b.key))).toEqual([
      { key: 'nested/KEY', reason: 'invalid-key' },
      { key: 'TOO_BIG', reason: 'too-large' },
    ]);

    expect((await get(env, 'NEW')).json.result.value).toBe(fresh);
    expect((await get(env, 'STALE')).json.result).toMatchObject({ value: staleNew, version: 2 });
    expect((await get(env, 'NEWER')).json.result.value).toBe(apiValue);
    expect((await get(env, 'SAME')).json.result.version).toBe(1);

    const event = (await integrationEvents()).find(
      (e) => e.eventType === 'vault.sync.completed' && JSON.parse(e.data).jobId === jobId,
    );
    expect(event).toBeDefined();
    expect(JSON.parse(event!.data)).toMatchObject({ jobId, environment: env, imported: 2, skipped: 2, failed: 2 });

    const actions = (await audits()).filter((a) => a.entityType === 'SecretEnvironment' && a.entityId === env);
    expect(actions.map((a) => a.action).sort()).toEqual(['sync', 'sync.requested']);
    expect(JSON.parse(actions.find((a) => a.action === 'sync')!.changes)).toEqual({
      jobId,
      imported: 2,
      skipped: 2,
      failed: 2,
    });

    // A second run finds nothing newer to import.
    const again = await invoke('POST', `/api/secrets/sync/${env}`, { headers: KEY, token: admin });
    const second = (
      await ddb().send(new GetCommand({ TableName: config.tableName, Key: vaultKeys.job(again.json.result.jobId) }))
    ).Item!;
    expect(second.result).toMatchObject({ imported: 0, skipped: 4, failed: 2 });
  });

  it('marks the job failed, records vault.sync.failed and rethrows (for the queue to retry) when a listing fails', async () => {
    const throttled: ParameterStore = {
      get: () => Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' })),
      put: () => Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' })),
      delete: () => Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' })),
      listByPath: () => Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' })),
    };
    const jobId = crypto.randomUUID();
    await createJob(jobId, 'vault.sync', { environment: 'broken' });
    parameterStore.install(throttled);
    try {
      await expect(runVaultSync({ jobId, environment: 'broken', requestedBy: null })).rejects.toMatchObject({
        name: 'ThrottlingException',
      });
    } finally {
      parameterStore.install(testParams);
    }

    const job = (await ddb().send(new GetCommand({ TableName: config.tableName, Key: vaultKeys.job(jobId) }))).Item!;
    expect(job).toMatchObject({ status: 'failed', error: 'ThrottlingException' });
    const event = (await integrationEvents()).find((e) => e.eventType === 'vault.sync.failed');
    expect(JSON.parse(event!.data)).toEqual({ jobId, environment: 'broken', error: 'ThrottlingException' });
  });
});

describe('names a route beside them owns', () => {
  it('answers 405 (Allow: POST) to any other method on /api/secrets/sync/{environment}, storing nothing', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await invoke(method, '/api/secrets/sync/x', {
        headers: KEY,
        token: admin,
        body: method === 'PUT' ? { value: secret('shadowed') } : undefined,
      });
      expect(res, `${method}: ${res.text}`).toAnswer(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.json.error.code).toBe('METHOD_NOT_ALLOWED');
    }
    expect(await testParams.get(vaultName('sync', 'x'))).toBeNull();
  });

  it('reserves the environment names sync and tenants (400), as the document says', async () => {
    for (const env of ['sync', 'tenants']) {
      expect(await invoke('GET', `/api/secrets/${env}`, { headers: KEY })).toAnswer(400);
      expect(await invoke('POST', `/api/secrets/sync/${env}`, { headers: KEY, token: admin })).toAnswer(400);
    }
    expect(await put('tenants', 'K', secret('reserved'))).toAnswer(400);
    expect(await testParams.get(vaultName('tenants', 'K'))).toBeNull();
  });
});

describe('secret values never leak', () => {
  it('appear in no log line, audit entry or integration event', async () => {
    expect(SECRETS.size).toBeGreaterThan(10);
    const records = JSON.stringify([...(await audits()), ...(await integrationEvents())]);
    const logs = JSON.stringify(logged, (_k, v) =>
      v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v,
    );
    expect(logged.length).toBeGreaterThan(0);
    for (const value of SECRETS) {
      expect(records).not.toContain(value);
      expect(logs).not.toContain(value);
    }
  });
});
