/**
 * `npm run load`: a short, bounded load run against the local server.
 *
 * Starts `scripts/local-server.ts` on a free loopback port with a throw-away LOCAL_DATA_DIR, signs
 * in as its SystemAdmin, creates a tenant and a few suppliers, then runs autocannon over a mix of
 * reads and writes (health, supplier list, supplier by id, supplier create, product list, role
 * list). Prints throughput and latency percentiles, and exits non-zero on any 5xx, any socket
 * error or timeout, or any unexpected status.
 *
 * Environment (all optional): LOAD_DURATION (seconds, 10), LOAD_CONNECTIONS (20),
 * LOAD_MAX_REQUESTS (100000), LOAD_JSON (a file to write the summary to), LOAD_MIX (`mixed`, or
 * `health` to measure the server without DynamoDB).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { spawnLocalServer } from '#local/spawn-server.ts';

const DURATION = Number(process.env.LOAD_DURATION ?? 10);
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 20);
const MAX_REQUESTS = Number(process.env.LOAD_MAX_REQUESTS ?? 100_000);

async function api<T>(base: string, method: string, path: string, token?: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json().catch(() => undefined)) as { result: T } | undefined;
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json?.result as T;
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'saas-load-'));
  const admin = { email: 'load-admin@example.com', password: `Load-${crypto.randomUUID()}` };
  const server = spawnLocalServer({
    LOCAL_DATA_DIR: dataDir,
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    INTERNAL_API_KEY: `load-${crypto.randomUUID()}`,
    // One access-log line per request would measure the pipe to this process, not the API.
    LOG_LEVEL: 'WARN',
  });
  let failed = true;
  try {
    const base = await server.ready;
    if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(base)) throw new Error(`refusing to load anything but loopback: ${base}`);
    const { accessToken: token } = await api<{ accessToken: string }>(
      base,
      'POST',
      '/api/auth/login',
      undefined,
      admin,
    );
    const slug = `load-${crypto.randomUUID().slice(0, 8)}`;
    const tenant = await api<{ id: string }>(base, 'POST', '/api/tenants', token, {
      slug,
      name: 'Load test tenant',
      email: `owner@${slug}.example.com`,
      planType: 2,
      maxAgents: 5,
      maxKnowledgeBases: 5,
      maxSeats: 50,
    });
    const supplierIds: string[] = [];
    for (let i = 0; i < 5; i++)
      supplierIds.push(
        (
          await api<{ id: string }>(base, 'POST', '/api/suppliers', token, {
            name: `Seed supplier ${i}`,
            tenantId: tenant.id,
          })
        ).id,
      );

    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const q = `tenantId=${tenant.id}`;
    // Each connection cycles through this mix: 5 reads for every write.
    const requests: autocannon.Request[] = [
      { method: 'GET', path: '/api/health' },
      { method: 'GET', path: `/api/suppliers?${q}&pageSize=20`, headers: auth },
      { method: 'GET', path: `/api/suppliers/${supplierIds[0]}?${q}`, headers: auth },
      {
        method: 'POST',
        path: '/api/suppliers',
        headers: json,
        body: JSON.stringify({ name: 'Load supplier', email: 'load@example.com', tenantId: tenant.id }),
      },
      { method: 'GET', path: `/api/product-services?${q}`, headers: auth },
      { method: 'GET', path: `/api/roles?${q}`, headers: auth },
    ];
    const expected: Record<string, number> = { 200: 5, 201: 1 };
    const mix = process.env.LOAD_MIX === 'health' ? requests.slice(0, 1) : requests;

    console.log(
      `Load: ${CONNECTIONS} connections, ${DURATION} s (at most ${MAX_REQUESTS} requests), ${mix.length} request kinds, against ${base}`,
    );
    const result = await autocannon({
      url: base,
      connections: CONNECTIONS,
      duration: DURATION,
      maxOverallRequests: MAX_REQUESTS,
      timeout: 10,
      requests: mix,
    });
    const statuses = Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, (s as { count: number }).count]),
    );
    const serverErrors = Object.entries(statuses)
      .filter(([code]) => Number(code) >= 500)
      .reduce((n, [, c]) => n + c, 0);
    const unexpected = Object.entries(statuses)
      .filter(([code]) => !(code in expected))
      .reduce((n, [, c]) => n + c, 0);
    const total = Object.values(statuses).reduce((n, c) => n + c, 0);
    const summary = {
      mix: mix.map((r) => `${r.method} ${r.path?.split('?')[0]}`),
      connections: CONNECTIONS,
      durationSeconds: result.duration,
      requests: total,
      throughputRps: Math.round(result.requests.average),
      latencyMs: {
        p50: result.latency.p50,
        p90: result.latency.p90,
        p99: result.latency.p99,
        max: result.latency.max,
        average: result.latency.average,
      },
      statuses,
      serverErrors,
      socketErrors: result.errors,
      timeouts: result.timeouts,
      unexpected,
    };
    console.log(JSON.stringify(summary, null, 2));
    console.log(
      `Throughput ${summary.throughputRps} req/s, p50 ${summary.latencyMs.p50} ms, p99 ${summary.latencyMs.p99} ms, ` +
        `${total} requests, ${serverErrors} 5xx, ${result.errors} socket errors, ${result.timeouts} timeouts`,
    );
    if (process.env.LOAD_JSON) writeFileSync(process.env.LOAD_JSON, `${JSON.stringify(summary, null, 2)}\n`);
    failed = serverErrors > 0 || result.errors > 0 || result.timeouts > 0 || unexpected > 0 || total === 0;
    if (failed) {
      console.error('Load run FAILED: 5xx, socket errors, timeouts or unexpected statuses (see above).');
      console.error(server.logs().stderr.slice(-5_000));
    }
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
