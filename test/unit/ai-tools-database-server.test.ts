import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ToolItem } from '#areas/tools/records.ts';
import { countingRelay, startRealPostgres } from '#test/support/real-postgres.ts';

const secrets = new Map<string, string>();
vi.mock('#areas/vault/tenant-secrets.ts', () => ({
  resolveTenantSecret: async (_t: string, ref: string) => secrets.get(ref) ?? null,
}));
const { dbExecute: dbExecuteType, dbQuery: dbQueryType } = await import('#areas/tools/built-in/database.ts');
const dbQuery = dbQueryType.execute;
const dbExecute = dbExecuteType.execute;
// The servers listen on loopback: the local run's switch lets the database tools reach them.
vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');
afterAll(() => {
  vi.unstubAllEnvs();
});

/**
 * The database tools against a real PostgreSQL server (the WebAssembly one of
 * ai-tools-database.test.ts shares one backend between connections and ignores session options).
 */
let pg: Awaited<ReturnType<typeof startRealPostgres>>;
let relay: Awaited<ReturnType<typeof countingRelay>>;
const ctx = { tenantId: 't1', agentId: 'a1', requestId: 'r1' };
const REF = 'vault://tenants/t1/tools/x/connection-1';

beforeAll(async () => {
  pg = await startRealPostgres(
    54361,
    "CREATE TABLE items (id int primary key, name text); INSERT INTO items SELECT g, 'n' || g FROM generate_series(1, 30) g;",
  );
  relay = await countingRelay(54361);
  secrets.set(REF, `postgres://postgres:postgres@127.0.0.1:${relay.port}/postgres`);
}, 120_000);
afterAll(async () => {
  await relay?.close();
  await pg?.stop();
}, 30_000);

const tool = (p: Record<string, unknown> = {}) =>
  ({
    displayName: 'Db',
    schema: { connectionString: REF },
    configParams: { maxRows: 5, readOnly: true, timeoutSeconds: 5, ...p },
  }) as unknown as ToolItem;

const count = async (where: string) =>
  (await pg.admin.query(`SELECT count(*)::int AS c FROM items WHERE ${where}`)).rows[0].c as number;

const running = async (text: string) =>
  (
    await pg.admin.query(
      "SELECT count(*)::int AS c FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()",
      [`%${text}%`],
    )
  ).rows[0].c as number;

describe('Db Query on a real PostgreSQL server: one read-only statement', () => {
  it('refuses several statements: COMMIT; INSERT writes nothing', async () => {
    for (const sql of [
      "COMMIT; INSERT INTO items VALUES (901, 'w')",
      "SELECT 1; INSERT INTO items VALUES (902, 'w')",
    ]) {
      const r = await dbQuery(tool(), { sql }, ctx);
      expect(r, sql).toEqual({ ok: false, error: expect.stringMatching(/multiple commands/) });
    }
    expect(await count('id > 900')).toBe(0);
  });

  it('runs in a session that stays read-only whatever the statement does', async () => {
    expect(await dbQuery(tool(), { sql: 'SHOW default_transaction_read_only' }, ctx)).toEqual({
      ok: true,
      result: { rows: [{ default_transaction_read_only: 'on' }], truncated: false },
    });
    for (const sql of [
      "WITH w AS (INSERT INTO items VALUES (903, 'w') RETURNING id) SELECT id FROM w",
      "DO $$ BEGIN COMMIT; INSERT INTO items VALUES (904, 'w'); END $$",
    ]) {
      const r = await dbQuery(tool(), { sql }, ctx);
      expect(r, sql).toEqual({ ok: false, error: expect.stringMatching(/read-only|transaction termination/) });
    }
    expect(await count('id > 900')).toBe(0);
  });

  it('sets the server-side statement_timeout from timeoutSeconds', async () => {
    expect(
      await dbQuery(tool({ timeoutSeconds: 2 }), { sql: "SELECT current_setting('statement_timeout') AS t" }, ctx),
    ).toEqual({
      ok: true,
      result: { rows: [{ t: '2s' }], truncated: false },
    });
  });

  it('stops a slow statement on the server when the tool gives up', async () => {
    for (const sql of [
      'COMMIT; SELECT pg_sleep(20)',
      "SELECT set_config('statement_timeout', '0', false), pg_sleep(21)",
    ]) {
      const started = Date.now();
      const r = await dbQuery(tool({ timeoutSeconds: 1 }), { sql }, ctx);
      expect(r.ok, sql).toBe(false);
      expect(Date.now() - started).toBeLessThan(3000);
      await new Promise((res) => setTimeout(res, 1000));
      expect(await running('pg_sleep(2'), sql).toBe(0);
    }
  });

  it('Db Execute runs one statement and commits it', async () => {
    const t = tool({ readOnly: false });
    expect(await dbExecute(t, { sql: "COMMIT; INSERT INTO items VALUES (905, 'w')" }, ctx)).toEqual({
      ok: false,
      error: expect.stringMatching(/multiple commands/),
    });
    expect(await dbExecute(t, { sql: 'UPDATE items SET name = $1 WHERE id <= 3', params: ['u'] }, ctx)).toEqual({
      ok: true,
      result: { rowCount: 3 },
    });
    expect(await count("name = 'u'")).toBe(3);
  });
});

describe('Db Query on a real PostgreSQL server: bounded results', () => {
  it('reads maxRows + 1 rows of a large result, not the whole result', async () => {
    const before = relay.counter.fromServer;
    const r = await dbQuery(
      tool({ maxRows: 2 }),
      { sql: "SELECT g, repeat('x', 1000) AS pad FROM generate_series(1, 50000) g" },
      ctx,
    );
    expect(r).toMatchObject({ ok: true, result: { truncated: true } });
    expect(r.ok && (r.result as { rows: { g: number }[] }).rows.map((row) => row.g)).toEqual([1, 2]);
    // The whole result is about 50 MB; three rows and the session's messages are a few KB.
    expect(relay.counter.fromServer - before).toBeLessThan(64 * 1024);
  });

  it('caps the bytes of the rows it keeps, and of what it reads', async () => {
    const many = await dbQuery(
      tool({ maxRows: 100 }),
      { sql: "SELECT g, repeat('x', 300000) AS pad FROM generate_series(1, 100) g" },
      ctx,
    );
    expect(many).toMatchObject({ ok: true, result: { truncated: true } });
    const rows = many.ok ? (many.result as { rows: unknown[] }).rows : [];
    expect(rows.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(JSON.stringify(rows))).toBeLessThanOrEqual(1024 * 1024);

    const before = relay.counter.fromServer;
    const huge = await dbQuery(tool(), { sql: "SELECT repeat('x', 50000000) AS pad" }, ctx);
    expect(huge).toEqual({ ok: false, error: expect.stringMatching(/larger than 1048576 bytes/) });
    expect(relay.counter.fromServer - before).toBeLessThan(20 * 1024 * 1024);
  });
});

describe('Db Query connection targets', () => {
  const UNREACHABLE = "The database could not be reached; check the tool's connection";
  const at = (url: string) => {
    secrets.set('vault://tenants/t1/tools/x/connection-2', url);
    return dbQuery(
      { ...tool(), schema: { connectionString: 'vault://tenants/t1/tools/x/connection-2' } } as unknown as ToolItem,
      { sql: 'SELECT 1 AS one' },
      ctx,
    );
  };
  afterEach(() => {
    process.env.LOCAL_ALLOW_LOOPBACK_TARGETS = '1';
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
  });

  it('refuses non-public addresses with one message, whether a server listens there or not', async () => {
    const targets = [
      'postgres://u:p@169.254.169.254:5432/db',
      'postgres://u:p@10.0.0.5:5432/db',
      'postgres://u:p@192.168.1.10/db',
      'postgres://u:p@172.16.0.1:8000/db',
      'postgres://u:p@[fd00:ec2::254]/db',
      'postgres://u:p@[::ffff:127.0.0.1]/db',
      'postgres://u:p@0.0.0.0/db',
    ];
    for (const url of targets) expect(await at(url), url).toEqual({ ok: false, error: UNREACHABLE });
    // Without the switch loopback is refused too: a port with PostgreSQL behind it and a closed one
    // answer alike, and the switch's closed port answers the same as a refusal.
    delete process.env.LOCAL_ALLOW_LOOPBACK_TARGETS;
    for (const url of [`postgres://postgres:postgres@127.0.0.1:54361/postgres`, 'postgres://u:p@localhost:1/db'])
      expect(await at(url), url).toEqual({ ok: false, error: UNREACHABLE });
    process.env.LOCAL_ALLOW_LOOPBACK_TARGETS = '1';
    expect(await at('postgres://u:p@127.0.0.1:1/db')).toEqual({ ok: false, error: UNREACHABLE });
  });

  it('refuses socket and file options at run time as well (a string stored before the check)', async () => {
    for (const url of [
      'postgres:///postgres',
      'postgres://postgres@%2Ftmp/postgres',
      'postgres://postgres:postgres@127.0.0.1:54361/postgres?host=/tmp',
      'postgres://postgres:postgres@127.0.0.1:54361/postgres?sslrootcert=/etc/passwd',
      'postgres://postgres:postgres@127.0.0.1:54361/postgres?options=-c%20default_transaction_read_only%3Doff',
      'host=/tmp user=postgres dbname=postgres',
    ])
      expect(await at(url), url).toEqual({ ok: false, error: UNREACHABLE });
  });

  it('reaches loopback only under the local switch, and never in a deployed function', async () => {
    const url = `postgres://postgres:postgres@127.0.0.1:${relay.port}/postgres`;
    expect(await at(url)).toEqual({ ok: true, result: { rows: [{ one: 1 }], truncated: false } });
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'saas-prod-agents';
    expect(await at(url)).toEqual({ ok: false, error: UNREACHABLE });
  });

  it('sets the search path to the configured schema', async () => {
    await pg.admin.query(
      "CREATE SCHEMA IF NOT EXISTS shop; CREATE TABLE IF NOT EXISTS shop.items (label text); INSERT INTO shop.items VALUES ('in shop')",
    );
    const t = { ...tool(), schema: { connectionString: REF, schemaName: 'shop' } } as unknown as ToolItem;
    expect(await dbQuery(t, { sql: 'SELECT label FROM items' }, ctx)).toEqual({
      ok: true,
      result: { rows: [{ label: 'in shop' }], truncated: false },
    });
  });
});
