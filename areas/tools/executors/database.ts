import { storedSchema, toParams, type ToolItem } from '#areas/tools/records.ts';
import { resolveTenantSecret } from '#areas/vault/for-tools.ts';
import type { ToolContext, ToolOutcome } from './outcome.ts';
import type { Mode } from './postgres-session.ts';

const MAX_SQL = 20_000;

// Loaded when a database tool runs: pg sits beside the agent-runtime bundle (lib/bundling.ts), and
// at import it probes for Cloudflare with `new Response()`, which loads Node's fetch implementation.
const postgres = () => import('./postgres-session.ts');

/**
 * Db Query and Db Execute on PostgreSQL. The connection string comes only from the tool's
 * reference in the tenant's own secret namespace (resolveTenantSecret refuses any other). One
 * statement per call; a Db Query runs in a session that cannot leave read only, and every bound
 * (time, rows, bytes) holds on the server as well as here (docs/decisions/tools.md).
 */
async function run(tool: ToolItem, args: Record<string, unknown>, ctx: ToolContext, mode: Mode): Promise<ToolOutcome> {
  const params = toParams(tool);
  if (mode === 'execute' && params.readOnly) return { ok: false, error: 'This tool is read-only' };
  const sql = typeof args.sql === 'string' ? args.sql.trim() : '';
  if (!sql || sql.length > MAX_SQL) return { ok: false, error: 'Give one SQL statement as "sql"' };
  const values = Array.isArray(args.params) ? args.params.slice(0, 100) : [];
  const ref = storedSchema(tool).connectionString;
  const conn = ref ? await resolveTenantSecret(ctx.tenantId, ref) : null;
  if (!conn) return { ok: false, error: 'This tool has no database connection configured' };
  const ms = Math.max(1, params.timeoutSeconds) * 1000;
  const deadline = Date.now() + ms;
  const { openSession, runStatement, closeSession, TimedOut } = await postgres();
  let session: Awaited<ReturnType<typeof openSession>> | undefined;
  try {
    session = await openSession({ connectionString: conn }, mode, ms);
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
    if (session) await closeSession(session.client);
  }
}

export const dbQuery = (tool: ToolItem, args: Record<string, unknown>, ctx: ToolContext) =>
  run(tool, args, ctx, 'query');
export const dbExecute = (tool: ToolItem, args: Record<string, unknown>, ctx: ToolContext) =>
  run(tool, args, ctx, 'execute');
