import { beforeAll, describe, expect, it } from 'vitest';
import { fileParameterStore } from '#local/file-parameter-store.ts';
import { config } from '#shared/platform/config.ts';
import { api, e2e, mintToken } from '#test/support/e2e.ts';

// Each run uses its own environments, so the server's persistent data never collides.
const run = crypto.randomUUID().slice(0, 8);
const envName = (label: string) => `${label}-${run}`;
const key = () => ({ 'x-internal-api-key': e2e().internalApiKey });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let admin: string;
let owner: string;

beforeAll(async () => {
  admin = await mintToken({ role: 'SystemAdmin' });
  owner = await mintToken({ role: 'TenantOwner' });
});

/** The sync job runs on the server's queue after the 202; poll until `done` holds. */
async function eventually<T>(probe: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > until) return value;
    await sleep(200);
  }
}

describe('vault over HTTP (local server)', () => {
  it.each([
    ['GET', '/api/secrets/prod/K'],
    ['GET', '/api/secrets/prod'],
    ['PUT', '/api/secrets/prod/K'],
    ['DELETE', '/api/secrets/prod/K'],
    ['POST', '/api/secrets/sync/prod'],
  ])('%s %s: a missing or wrong key is 401', async (method, path) => {
    const body = method === 'PUT' ? { value: 'x' } : undefined;
    const missing = await api(method, path, { token: admin, body });
    const wrong = await api(method, path, { token: admin, body, headers: { 'x-internal-api-key': 'not-the-key' } });
    for (const res of [missing, wrong]) {
      expect(res).toAnswer(401);
      expect(res.json).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    }
  });

  it('audits the refusal per source, readable by a SystemAdmin, without the key or the path that was sent', async () => {
    const env = envName('denied');
    const wrongKey = `wrong-${crypto.randomUUID()}`;
    // A loopback address of this run's own: refusals are audited per source (the 1st, 10th, 100th… of an hour).
    const source = `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
    const refused = await api('GET', `/api/secrets/${env}`, {
      headers: { 'x-internal-api-key': wrongKey },
      localAddress: source,
    });
    expect(refused).toAnswer(401);

    const logs = await api('GET', '/api/admin/audit-logs?entityType=SecretAccess&pageSize=100', { token: admin });
    expect(logs).toAnswer(200);
    const entry = logs.json.result.items.find((a: { entityId: string }) => a.entityId === source);
    expect(entry).toMatchObject({ action: 'access.denied' });
    expect(JSON.parse(entry.changes)).toMatchObject({
      reason: 'invalid-internal-key',
      route: 'vault.list',
      refusals: 1,
    });
    expect(logs.text).not.toContain(wrongKey);
    expect(logs.text).not.toContain(env);
  });

  it('stores a SecureString, reads the plain value, lists it masked, and validates input', async () => {
    const env = envName('app');
    const value = `pg://user:${crypto.randomUUID()}@db/app`;
    const put = await api('PUT', `/api/secrets/${env}/DB_URL`, { headers: key(), body: { value } });
    expect(put).toAnswer(200);
    expect(put.json.result).toMatchObject({ environment: env, key: 'DB_URL', version: 1 });
    expect(put.text).not.toContain(value);

    const read = await api('GET', `/api/secrets/${env}/DB_URL`, { headers: key() });
    expect(read.json.result).toEqual({ environment: env, key: 'DB_URL', value, version: 1 });

    const list = await api('GET', `/api/secrets/${env}`, { headers: key() });
    expect(list.json.result.items).toEqual([
      { key: 'DB_URL', value: '***', version: 1, updatedAt: expect.any(String), deleted: false },
    ]);
    expect(list.text).not.toContain(value);

    // The local stand-in keeps it as a SecureString: read without decryption it is ciphertext.
    const stored = await fileParameterStore(e2e().dataDir, { readOnly: true }).get(
      `${config.paramPrefix}/vault/${env}/DB_URL`,
      { decrypt: false },
    );
    expect(stored?.value).not.toBe(value);
    expect(stored?.value).toMatch(/^local-kms:/);

    expect(await api('GET', `/api/secrets/${env}/bad!key`, { headers: key() })).toAnswer(400);
    expect(await api('GET', `/api/secrets/Not_An_Env/K`, { headers: key() })).toAnswer(400);
    expect(await api('PUT', `/api/secrets/${env}/EMPTY`, { headers: key(), body: { value: '' } })).toAnswer(400);
    const big = await api('PUT', `/api/secrets/${env}/BIG`, { headers: key(), body: { value: 'x'.repeat(4097) } });
    expect(big).toAnswer(413, 'PAYLOAD_TOO_LARGE');
  });

  it('deletes only for a SystemAdmin, leaving the marker: 404 on read, listed as deleted', async () => {
    const env = envName('del');
    await api('PUT', `/api/secrets/${env}/TOKEN`, { headers: key(), body: { value: `t-${crypto.randomUUID()}` } });

    expect(await api('DELETE', `/api/secrets/${env}/TOKEN`, { headers: key() })).toAnswer(401);
    const forbidden = await api('DELETE', `/api/secrets/${env}/TOKEN`, { headers: key(), token: owner });
    expect(forbidden).toAnswer(403, 'FORBIDDEN');

    const deleted = await api('DELETE', `/api/secrets/${env}/TOKEN`, { headers: key(), token: admin });
    expect(deleted).toAnswer(204);
    expect(deleted.text).toBe('');

    expect(await api('GET', `/api/secrets/${env}/TOKEN`, { headers: key() })).toAnswer(404);
    const list = await api('GET', `/api/secrets/${env}`, { headers: key() });
    expect(list.json.result.items).toEqual([
      expect.objectContaining({ key: 'TOKEN', value: '***', deleted: true, version: 2 }),
    ]);
    const versions = fileParameterStore(e2e().dataDir, { readOnly: true }).versions(
      `${config.paramPrefix}/vault/${env}/TOKEN`,
    );
    expect(versions.map((v) => v.value).at(-1)).toBe('__deleted__');
    expect(versions).toHaveLength(2);
  });

  it('syncs from the sources in the background: 202 at once, then the import and a vault.sync.completed event', async () => {
    const env = envName('sync');
    const newer = `api-${crypto.randomUUID()}`;
    const imported = `src-${crypto.randomUUID()}`;
    // What the deployment provides for the environment (written before the API write below).
    const sources = fileParameterStore(e2e().dataDir);
    await sources.put(`${config.paramPrefix}/vault-sources/${env}/IMPORTED`, imported);
    await sources.put(`${config.paramPrefix}/vault-sources/${env}/NEWER`, `src-${crypto.randomUUID()}`);
    await sleep(5);
    await api('PUT', `/api/secrets/${env}/NEWER`, { headers: key(), body: { value: newer } });

    expect(await api('POST', `/api/secrets/sync/${env}`, { headers: key(), token: owner })).toAnswer(403);
    const res = await api('POST', `/api/secrets/sync/${env}`, { headers: key(), token: admin });
    expect(res).toAnswer(202);
    expect(res.json.result).toEqual({ jobId: expect.any(String), status: 'queued' });
    const { jobId } = res.json.result;

    const findEvent = async (): Promise<{ eventType: string; data: string } | undefined> => {
      const page = await api('GET', '/api/admin/integration-events?pageSize=100', { token: admin });
      return (page.json?.result?.items ?? []).find(
        (e: { eventType: string; data: string }) =>
          e.eventType === 'vault.sync.completed' && JSON.parse(e.data).jobId === jobId,
      );
    };
    const event = await eventually(findEvent, Boolean);
    expect(event).toBeDefined();
    expect(JSON.parse(event!.data)).toMatchObject({ environment: env, imported: 1, skipped: 1, failed: 0 });
    expect(event!.data).not.toContain(imported);

    expect((await api('GET', `/api/secrets/${env}/IMPORTED`, { headers: key() })).json.result.value).toBe(imported);
    expect((await api('GET', `/api/secrets/${env}/NEWER`, { headers: key() })).json.result.value).toBe(newer);
  });
});
