import { deployedRoutes, routes } from '#local/routes.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import type { BenchFunction } from './functions.ts';
import { invoke, prepare, type BenchRequest, type Harness } from './harness.ts';
import { readOverrides, seedRequests, type ScenarioContext } from './scenarios.ts';
import { resetInternalKeyCache } from '#shared/auth/internal-key.ts';
import { resetVaultCache } from '#areas/vault/store.ts';
import { median, readRouteKind, type RouteKind } from './stats.ts';

export interface ReadResult {
  routeId: string;
  group: string;
  path: string;
  kind: RouteKind;
  /** Who called: the seeded tenant's owner, a SystemAdmin, the internal key, or nobody. */
  caller: string;
  /** Null when the route could not be exercised; `note` says why. */
  request: BenchRequest | null;
  status: number | null;
  /** DynamoDB requests and capacity units per call (the most seen over the calls). */
  requests: number | null;
  capacity: number | null;
  /** Parameter-store (SSM) reads per call. */
  ssmReads: number | null;
  /**
   * Routes whose function caches what it reads (the vault): the first call after the instance's
   * caches were emptied, repeated `calls` times. Null for routes without such a cache.
   */
  cacheCold: { calls: number; medianMs: number; requests: number; ssmReads: number; cachedMedianMs: number } | null;
  commands: string[];
  target: string;
  pass: boolean | null;
  note?: string;
}

const ok = (status: number) => status >= 200 && status < 300;

/** Per group, what empties the instance's read caches, so the first (cache-cold) call is measured too. */
const cacheResets: Record<string, () => void> = {
  vault: () => {
    resetVaultCache();
    resetInternalKeyCache();
  },
};

/** The cache-cold call (caches emptied before each) against the cached one, `calls` times each, alternating. */
async function measureCacheCold(
  h: Harness,
  request: BenchRequest,
  reset: () => void,
  calls: number,
): Promise<NonNullable<ReadResult['cacheCold']>> {
  const cold: number[] = [];
  const cached: number[] = [];
  let requests = 0;
  let ssmReads = 0;
  for (let i = 0; i < calls; i++) {
    reset();
    h.recorder.reset();
    const reads = h.paramReads();
    let t = performance.now();
    const res = await invoke(request);
    cold.push(performance.now() - t);
    if (!ok(res.status)) throw new Error(`cache-cold call answered ${res.status}`);
    requests = Math.max(requests, h.recorder.requests.length);
    ssmReads = Math.max(ssmReads, h.paramReads() - reads);
    t = performance.now();
    await invoke(request);
    cached.push(performance.now() - t);
  }
  return { calls, medianMs: median(cold), requests, ssmReads, cachedMedianMs: median(cached) };
}

type ZodShape = { _zod?: { def?: { type?: string; shape?: Record<string, unknown>; element?: unknown } } };

const queryKeys = (route: RouteDef) => Object.keys((route.query as ZodShape | undefined)?._zod?.def?.shape ?? {});

/** An array, or an object with an `items` array. */
const returnsCollection = (route: RouteDef) => {
  const def = (route.response as ZodShape | undefined)?._zod?.def;
  if (def?.type === 'array') return true;
  const items = (def?.shape?.items as ZodShape | undefined)?._zod?.def;
  return items?.type === 'array';
};

export const routeKind = (route: RouteDef) => readRouteKind(route.path, queryKeys(route), returnsCollection(route));

export function targetOf(kind: RouteKind): { text: string; check: (requests: number) => boolean } | null {
  if (kind === 'get-by-id') return { text: '<= 1 request', check: (n) => n <= 1 };
  if (kind === 'list') return { text: '<= 2 requests', check: (n) => n <= 2 };
  return null;
}

export const scenarioContext = (h: Harness): ScenarioContext => ({
  tenantId: h.tenantId,
  ownerToken: h.ownerToken,
  adminToken: h.adminToken,
  internalKey: process.env.INTERNAL_API_KEY ?? '',
});

/** Creates the seed records through the API; returns what was created and what failed. */
export async function seed(h: Harness): Promise<{ created: string[]; failed: string[] }> {
  const created: string[] = [];
  const failed: string[] = [];
  const ids: Record<string, string> = {};
  for (const seedRequest of seedRequests(scenarioContext(h))) {
    const req = typeof seedRequest === 'function' ? seedRequest(ids) : seedRequest;
    if (!req) continue;
    const full = { token: req.headers?.['x-internal-api-key'] ? undefined : h.ownerToken, ...req };
    const p = prepare(full);
    if (!p.route) continue;
    try {
      const res = await invoke(full);
      if (ok(res.status)) created.push(p.route.id);
      else failed.push(`${p.route.id} (${res.status} ${res.json?.error?.code ?? ''})`);
      if (ok(res.status) && typeof res.json?.result?.id === 'string') ids[p.route.id] = res.json.result.id;
    } catch (err) {
      failed.push(`${p.route.id} (${(err as Error).message})`);
    }
  }
  return { created, failed };
}

/** Fills path parameters left to right from the first item of the list route at each prefix. */
async function concretePath(path: string, token: string): Promise<string | null> {
  const template = path.split('/');
  const segments = [...template];
  for (let i = 0; i < segments.length; i++) {
    const param = /^\{([^}]+)\}$/.exec(segments[i]!)?.[1];
    if (!param) continue;
    const listRoute = template.slice(0, i).join('/');
    if (!routes.some((r) => r.method === 'GET' && r.path === listRoute)) return null;
    const res = await invoke({ method: 'GET', path: segments.slice(0, i).join('/'), token });
    const result = res.json?.result;
    const items: unknown[] = Array.isArray(result) ? result : Array.isArray(result?.items) ? result.items : [];
    const first = items[0] as Record<string, unknown> | undefined;
    const value = first?.[param] ?? first?.id;
    if (!ok(res.status) || typeof value !== 'string') return null;
    segments[i] = encodeURIComponent(value);
  }
  return segments.join('/');
}

async function requestFor(route: RouteDef, h: Harness, token: string): Promise<BenchRequest | null> {
  const override = readOverrides[route.id];
  if (override) return override(scenarioContext(h));
  const path = await concretePath(route.path, token);
  if (!path) return null;
  if (route.auth.kind === 'internalKey') {
    return {
      method: 'GET',
      path,
      headers: { 'x-internal-api-key': process.env.INTERNAL_API_KEY ?? '' },
      ...(route.auth.roles ? { token } : {}),
    };
  }
  return { method: 'GET', path, ...(route.auth.kind === 'none' ? {} : { token }) };
}

const callerOf = (req: BenchRequest, h: Harness) =>
  req.token === h.adminToken
    ? 'SystemAdmin'
    : req.token
      ? 'TenantOwner'
      : req.headers?.['x-internal-api-key']
        ? 'internal key'
        : 'anonymous';

/**
 * DynamoDB requests, capacity and SSM reads per call of every deployed GET route whose function
 * exists. Called as the seeded tenant's owner; a route the owner may not call (403) as SystemAdmin.
 */
export async function measureReads(
  h: Harness,
  fns: readonly BenchFunction[],
  callsPerRoute = 3,
  coldCalls = 7,
): Promise<ReadResult[]> {
  const present = new Set(fns.filter((f) => f.exists).map((f) => f.name));
  const results: ReadResult[] = [];
  for (const route of deployedRoutes.filter((r) => r.method === 'GET' && present.has(r.group))) {
    const kind = routeKind(route);
    const target = targetOf(kind);
    const base = { routeId: route.id, group: route.group, path: route.path, kind, target: target?.text ?? 'reported' };
    const missing = { requests: null, capacity: null, ssmReads: null, cacheCold: null, commands: [], pass: null };
    h.recorder.label = `GET ${route.path}`;
    let request: BenchRequest | null = null;
    let first: Awaited<ReturnType<typeof invoke>> | null = null;
    try {
      for (const token of [h.ownerToken, h.adminToken]) {
        // The owner may not list what a SystemAdmin route reads (content sites): try the next caller.
        request = await requestFor(route, h, token);
        if (!request) continue;
        first = await invoke(request);
        if (first.status !== 403 || !request.token) break;
      }
    } catch (err) {
      results.push({
        ...base,
        caller: '-',
        request,
        status: null,
        ...missing,
        note: `failed: ${(err as Error).message}`,
      });
      continue;
    }
    if (!request || !first) {
      results.push({ ...base, caller: '-', request, status: null, ...missing, note: 'no seeded record to read' });
      continue;
    }
    const caller = callerOf(request, h);
    if (!ok(first.status)) {
      results.push({ ...base, caller, request, status: first.status, ...missing, note: `answered ${first.status}` });
      continue;
    }
    const reset = cacheResets[route.group];
    const cacheCold = reset ? await measureCacheCold(h, request, reset, coldCalls) : null;
    let requests = 0;
    let capacity = 0;
    let ssmReads = 0;
    const commands = new Set<string>();
    for (let i = 0; i < callsPerRoute; i++) {
      h.recorder.reset();
      const reads = h.paramReads();
      const res = await invoke(request);
      if (!ok(res.status)) throw new Error(`${route.id} answered ${res.status} on call ${i + 2}`);
      requests = Math.max(requests, h.recorder.requests.length);
      capacity = Math.max(capacity, h.recorder.capacity);
      ssmReads = Math.max(ssmReads, h.paramReads() - reads);
      for (const r of h.recorder.requests) commands.add(r.command.replace(/Command$/, ''));
    }
    results.push({
      ...base,
      caller,
      request,
      status: first.status,
      requests,
      capacity,
      ssmReads,
      cacheCold,
      commands: [...commands],
      pass: target ? target.check(requests) : null,
    });
  }
  return results;
}
