import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ToolItem } from '#areas/tools/records.ts';
import { countingRelay, startRealPostgres } from '#test/support/real-postgres.ts';

const secrets = new Map<string, string>();
vi.mock('#areas/vault/tenant-secrets.ts', () => ({
  resolveTenantSecret: async (_t: string, ref: string) => secrets.get(ref) ?? null,
}));
const { dbExecute, dbQuery } = await import('#areas/tools/executors/database.ts');

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
