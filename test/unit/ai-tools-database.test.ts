import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ToolItem } from '#areas/tools/records.ts';

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

let db: PGlite;
let server: PGLiteSocketServer;
const ctx = { tenantId: 't1', agentId: 'a1', requestId: 'r1' };

beforeAll(async () => {
  db = await PGlite.create();
  await db.exec(
    'CREATE TABLE items (id int primary key, name text); INSERT INTO items SELECT g, $$n$$ || g FROM generate_series(1, 30) g;',
  );
  server = new PGLiteSocketServer({ db, port: 54329, host: '127.0.0.1' } as never);
  await server.start();
  secrets.set('vault://tenants/t1/tools/x/connection-1', `postgres://postgres@${server.getServerConn()}/postgres`);
}, 60_000);
afterAll(async () => {
  await server.stop();
  await db.close();
});

const tool = (p: Record<string, unknown>) =>
  ({
    displayName: 'Db',
    schema: { connectionString: 'vault://tenants/t1/tools/x/connection-1' },
    configParams: { maxRows: 5, readOnly: true, timeoutSeconds: 5, ...p },
  }) as unknown as ToolItem;

describe('Db Query and Db Execute on PostgreSQL', () => {
  it('returns at most maxRows rows', async () => {
    const r = await dbQuery(tool({}), { sql: 'SELECT id, name FROM items ORDER BY id' }, ctx);
    expect(r).toMatchObject({ ok: true, result: { truncated: true } });
    expect(r.ok && (r.result as { rows: unknown[] }).rows).toEqual(
      [1, 2, 3, 4, 5].map((id) => ({ id, name: `n${id}` })),
    );
  });

  it('runs Db Query in a READ ONLY transaction: a write is refused and nothing changes', async () => {
    const r = await dbQuery(tool({}), { sql: "UPDATE items SET name = 'x'" }, ctx);
    expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/read-only/) });
    expect((await db.query("SELECT count(*)::int AS c FROM items WHERE name = 'x'")).rows).toEqual([{ c: 0 }]);
  });

  it('Db Execute writes only when the tool is not read-only', async () => {
    expect(await dbExecute(tool({}), { sql: 'DELETE FROM items WHERE id = 30' }, ctx)).toEqual({
      ok: false,
      error: 'This tool is read-only',
    });
    expect(
      await dbExecute(tool({ readOnly: false }), { sql: 'DELETE FROM items WHERE id = $1', params: [30] }, ctx),
    ).toEqual({
      ok: true,
      result: { rowCount: 1 },
    });
  });

  it('refuses a tool without a connection in the tenant namespace', async () => {
    const t = { ...tool({}), schema: { connectionString: null } } as unknown as ToolItem;
    expect(await dbQuery(t, { sql: 'SELECT 1' }, ctx)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/no database connection/),
    });
  });
});
