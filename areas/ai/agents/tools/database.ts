import pg from 'pg';
import { storedSchema, toParams, type ToolItem } from '#functions/tools/records.ts';
import { resolveTenantSecret } from '#areas/vault/tenant-secrets.ts';
import type { ToolContext, ToolOutcome } from './registry.ts';

const MAX_SQL = 20_000;

/**
 * Db Query and Db Execute on PostgreSQL. The connection string comes only from the tool's
 * reference in the tenant's own secret namespace (resolveTenantSecret refuses any other); the
 * time bound is both the server's statement_timeout and the client's own query timeout.
 */
async function run(tool: ToolItem, args: Record<string, unknown>, ctx: ToolContext, mode: 'query' | 'execute') {
  const params = toParams(tool);
  if (mode === 'execute' && params.readOnly) return { ok: false, error: 'This tool is read-only' } as ToolOutcome;
  const sql = typeof args.sql === 'string' ? args.sql.trim() : '';
  if (!sql || sql.length > MAX_SQL) return { ok: false, error: 'Give one SQL statement as "sql"' } as ToolOutcome;
  const values = Array.isArray(args.params) ? args.params.slice(0, 100) : [];
  const ref = storedSchema(tool).connectionString;
  const conn = ref ? await resolveTenantSecret(ctx.tenantId, ref) : null;
  if (!conn) return { ok: false, error: 'This tool has no database connection configured' } as ToolOutcome;
  const ms = Math.max(1, params.timeoutSeconds) * 1000;
  const client = new pg.Client({ connectionString: conn, query_timeout: ms, connectionTimeoutMillis: ms });
  try {
    await client.connect();
    await client.query(mode === 'query' ? 'BEGIN READ ONLY' : 'BEGIN');
    await client.query(`SET LOCAL statement_timeout = ${Math.floor(ms)}`);
    const res = await client.query({ text: sql, values });
    await client.query(mode === 'query' ? 'ROLLBACK' : 'COMMIT');
    if (mode === 'execute') return { ok: true, result: { rowCount: res.rowCount ?? 0 } } as ToolOutcome;
    const rows = (res.rows ?? []).slice(0, params.maxRows);
    return { ok: true, result: { rows, truncated: (res.rows?.length ?? 0) > rows.length } } as ToolOutcome;
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : 'The query failed' } as ToolOutcome;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export const dbQuery = (tool: ToolItem, args: Record<string, unknown>, ctx: ToolContext) =>
  run(tool, args, ctx, 'query');
export const dbExecute = (tool: ToolItem, args: Record<string, unknown>, ctx: ToolContext) =>
  run(tool, args, ctx, 'execute');
