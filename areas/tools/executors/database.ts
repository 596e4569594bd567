import type { Client } from 'pg';
import { storedSchema, toParams, type ToolItem } from '#areas/tools/records.ts';
import { resolveTenantSecret } from '#areas/vault/for-tools.ts';
import type { ToolContext, ToolOutcome } from './outcome.ts';

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
  // pg is loaded here, on first use (it stays beside the agent-runtime bundle, lib/bundling.ts): at
  // import it probes for Cloudflare with `new Response()`, which loads Node's fetch implementation.
  const { default: pg } = await import('pg');
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
    if (timedOut(err))
      return {
        ok: false,
        error: `The query did not finish within ${params.timeoutSeconds} s (timeoutSeconds); it was stopped and nothing was returned`,
      } as ToolOutcome;
    return { ok: false, error: err instanceof Error ? err.message : 'The query failed' } as ToolOutcome;
  } finally {
    await close(client);
  }
}

/** The client's own bound (a server that stops answering) or the server's statement_timeout (57014). */
const timedOut = (err: unknown) =>
  err instanceof Error && (err.message === 'Query read timeout' || (err as { code?: string }).code === '57014');

/**
 * A server busy past the timeout may not answer the goodbye either: the turn waits for it at most a
 * second, then drops the socket (the server rolls back what the dropped session left open).
 */
async function close(client: Client) {
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    client.end().then(
      () => true,
      () => true,
    ),
    new Promise<false>((r) => {
      timer = setTimeout(() => r(false), 1000);
    }),
  ]);
  clearTimeout(timer);
  if (!ended) (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

export const dbQuery = (tool: ToolItem, args: Record<string, unknown>, ctx: ToolContext) =>
  run(tool, args, ctx, 'query');
export const dbExecute = (tool: ToolItem, args: Record<string, unknown>, ctx: ToolContext) =>
  run(tool, args, ctx, 'execute');
