import { once } from '#shared/routes/types.ts';
import { isIP } from 'node:net';
import { parseConnectionString } from '#areas/tools/connection-target.ts';
import { storedSchema, toParams, type ToolItem } from '#areas/tools/records.ts';
import { resolveTenantSecret } from '#areas/vault/for-tools.ts';
import * as z from 'zod/mini';
import { defineToolType, type ToolContext, type ToolOutcome } from './definition.ts';
import type { Mode } from './postgres-session.ts';

const MAX_SQL = 20_000;

// Loaded when a database tool runs: pg sits beside the agent-runtime bundle (lib/bundling.ts), and
// at import it probes for Cloudflare with `new Response()`, which loads Node's fetch implementation.
const postgres = () => import('./postgres-session.ts');
const addressGuard = () => import('#shared/http/address-guard.ts');

/**
 * Every refusal of the target and every failure to reach it answers the same, so the tool cannot
 * be used to learn which addresses or ports answer (docs/decisions/tools.md, "Db Query and Db Execute").
 */
const UNREACHABLE = "The database could not be reached; check the tool's connection";

/** An error a PostgreSQL server sent (it has a severity), as opposed to one of the network or the guard. */
const fromServer = (err: unknown) => typeof (err as { severity?: unknown })?.severity === 'string';

/**
 * The session's connection: the host resolved and checked by the address guard (public unicast, or
 * loopback under the local run's switch), connected by the checked address so a second DNS answer
 * cannot move it, with TLS still checking the certificate against the host's name.
 */
async function reach(connectionString: string, mode: Mode, ms: number, schemaName: string | null) {
  const target = parseConnectionString(connectionString);
  const pinned = await (await addressGuard()).publicAddressOf(target.host);
  const servername = isIP(target.host) ? {} : { servername: target.host };
  const ssl = target.tls === 'off' ? false : { rejectUnauthorized: target.tls === 'verified', ...servername };
  const { openSession, closeSession } = await postgres();
  const config = { host: pinned.address, port: target.port, database: target.database, user: target.user, ssl };
  const session = await openSession({ ...config, password: target.password }, mode, ms);
  // Unqualified names resolve in the configured schema; qualified ones are the database role's to allow.
  if (schemaName) {
    const path = `"${schemaName.replace(/"/g, '""')}"`;
    await session.client
      .query({ text: "SELECT set_config('search_path', $1, false)", values: [path] })
      .catch(async (err: unknown) => {
        await closeSession(session.client);
        throw err;
      });
  }
  return session;
}

/**
 * Db Query and Db Execute on PostgreSQL. The connection string comes only from the tool's
 * reference in the tenant's own secret namespace (resolveTenantSecret refuses any other). One
 * statement per call; a Db Query runs in a session that cannot leave read only, and every bound
 * (time, rows, bytes) holds on the server as well as here (docs/decisions/tools.md).
 */
const inputSchema = once(() =>
  z.looseObject({
    sql: z.optional(z.string().check(z.meta({ description: 'One SQL statement; $1, $2, ... for its parameters' }))),
    params: z.optional(z.array(z.unknown()).check(z.meta({ description: 'The values of $1, $2, ... in order' }))),
  }),
);
type Args = z.output<ReturnType<typeof inputSchema>>;

async function run(tool: ToolItem, args: Args, ctx: ToolContext, mode: Mode): Promise<ToolOutcome> {
  const params = toParams(tool);
  if (mode === 'execute' && params.readOnly) return { ok: false, error: 'This tool is read-only' };
  const sql = args.sql?.trim() ?? '';
  if (!sql || sql.length > MAX_SQL) return { ok: false, error: 'Give one SQL statement as "sql"' };
  const values = args.params?.slice(0, 100) ?? [];
  const ref = storedSchema(tool).connectionString;
  const conn = ref ? await resolveTenantSecret(ctx.tenantId, ref) : null;
  if (!conn) return { ok: false, error: 'This tool has no database connection configured' };
  const ms = Math.max(1, params.timeoutSeconds) * 1000;
  const deadline = Date.now() + ms;
  const { runStatement, closeSession, TimedOut } = await postgres();
  let session: Awaited<ReturnType<typeof reach>>;
  try {
    session = await reach(conn, mode, ms, storedSchema(tool).schemaName);
  } catch (err) {
    return { ok: false, error: fromServer(err) ? (err as Error).message : UNREACHABLE };
  }
  try {
    await session.client.query(mode === 'query' ? 'BEGIN READ ONLY' : 'BEGIN');
    const res = await runStatement(session, sql, values, mode === 'query' ? params.maxRows : null, deadline);
    // A connection cut at the byte bound has nothing left to roll back: the server did it.
    if (res.open) await session.client.query(mode === 'query' ? 'ROLLBACK' : 'COMMIT');
    if (mode === 'execute') return { ok: true, result: { rowCount: res.rowCount } };
    return { ok: true, result: { rows: res.rows, truncated: res.truncated } };
  } catch (err) {
    if (err instanceof TimedOut || (err as { code?: string }).code === '57014')
      return {
        ok: false,
        error: `The query did not finish within ${params.timeoutSeconds} s (timeoutSeconds); it was stopped and nothing was returned`,
      };
    return { ok: false, error: err instanceof Error ? err.message : 'The query failed' };
  } finally {
    await closeSession(session.client);
  }
}

/** Db Query: a read-only session, so a call changes nothing. */
export const dbQuery = defineToolType({
  codes: ['db_query'],
  inputSchema,
  sideEffects: () => false,
  execute: (tool, args, ctx) => run(tool, args, ctx, 'query'),
});

/** Db Execute: a data-changing statement. */
export const dbExecute = defineToolType({
  codes: ['db_execute'],
  inputSchema,
  sideEffects: () => true,
  execute: (tool, args, ctx) => run(tool, args, ctx, 'execute'),
});
