import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '#shared/routes/types.ts';
import { errorEnvelopeProblem } from '#test/support/fuzz/checks.ts';
import {
  buildPath,
  pathParamNames,
  queryString,
  routesUnderTest,
  schemaFields,
  takesJsonBody,
} from '#test/support/fuzz/route-matrix.ts';
import { semanticRequest, type SemanticRequest } from '#test/support/fuzz/semantic.ts';
import { scanTable } from '#test/support/fuzz/table.ts';
import { spyOnWrites } from '#test/support/fuzz/write-spy.ts';
import { createWorld, nextIp, type World } from '#test/support/fuzz/world.ts';
import { invoke, type InvokeResult } from '#test/support/invoke.ts';

/**
 * Every route that takes a JSON body gets a valid body plus fields it does not
 * name (tenantId, roles, isSystem, status, price, createdAt, id, counters, key attributes…). Those
 * fields change nothing: the answer and the record read back through the API match a request
 * without them, no item in the table holds any of the planted values, and no write lands in
 * another tenant's partitions.
 */
const SENTINEL_NUMBER = 987654;
const SENTINEL_DATE = '2000-01-01T00:00:00.000Z';
const SENTINEL_ID = '0000aaaa-0000-4000-8000-00000000aaaa';
const SENTINEL_STRINGS = [
  'MASS#ASSIGN',
  'MassAssignRole',
  'MassAssignPermission',
  'MASS-ASSIGN-HASH',
  'mass-assign-slug',
  SENTINEL_DATE,
  SENTINEL_ID,
];

let world: World;
let spy: ReturnType<typeof spyOnWrites>;
const report: string[] = [];

const extrasFor = (world: World): Record<string, unknown> => ({
  tenantId: world.b.id,
  roles: ['SystemAdmin', 'MassAssignRole'],
  permissions: ['MassAssignPermission'],
  isSystem: true,
  status: SENTINEL_NUMBER,
  price: SENTINEL_NUMBER,
  amount: SENTINEL_NUMBER,
  createdAt: SENTINEL_DATE,
  updatedAt: SENTINEL_DATE,
  trialExpiresAt: SENTINEL_DATE,
  id: SENTINEL_ID,
  userId: SENTINEL_ID,
  ownerId: SENTINEL_ID,
  userCount: SENTINEL_NUMBER,
  memberCount: SENTINEL_NUMBER,
  childCount: SENTINEL_NUMBER,
  seatCount: SENTINEL_NUMBER,
  maxSeats: SENTINEL_NUMBER,
  planType: SENTINEL_NUMBER,
  version: SENTINEL_NUMBER,
  ttl: SENTINEL_NUMBER,
  pk: 'MASS#ASSIGN',
  sk: 'MASS#ASSIGN',
  gsi1pk: 'MASS#ASSIGN',
  gsi2pk: 'MASS#ASSIGN',
  passwordHash: 'MASS-ASSIGN-HASH',
  slug: 'mass-assign-slug',
  isEmailVerified: true,
  isActive: false,
  isVendor: true,
});

/** Routes that take a JSON object body: every create, update and action route. */
const bodyRoutes = routesUnderTest().filter((r) => r.method !== 'GET' && takesJsonBody(r));

beforeAll(async () => {
  world = await createWorld();
  spy = spyOnWrites();
});

afterAll(() => {
  spy?.restore();
  console.log(`[hardening] mass assignment: ${bodyRoutes.length} body routes`);
  for (const line of report) console.log(`[hardening] mass assignment: ${line}`);
});

async function send(route: RouteDef, req: SemanticRequest, rawBody: string) {
  const q = queryString(req.query);
  return invoke(route.method, `${buildPath(route, req.params)}${q ? `?${q}` : ''}`, {
    ...req.creds,
    rawBody,
    ip: nextIp(),
  });
}

/** GET routes that show the record a write made or changed: the same path, or the create path plus its new id. */
function readBackPaths(route: RouteDef, params: Record<string, unknown>, result: Record<string, unknown>): string[] {
  const gets = routesUnderTest().filter((r) => r.method === 'GET');
  const paths: string[] = [];
  const same = gets.find((r) => r.path === route.path && pathParamNames(r).length);
  if (same) paths.push(buildPath(same, params));
  if (route.method === 'POST' && result) {
    for (const child of gets.filter(
      (r) => r.path.startsWith(`${route.path}/{`) && r.path.split('/').length === route.path.split('/').length + 1,
    )) {
      const last = pathParamNames(child).at(-1)!;
      const value = last === 'slug' ? result.slug : result.id;
      if (typeof value === 'string') paths.push(buildPath(child, { ...params, [last]: value }));
    }
  }
  return paths;
}

const planted = (extras: Record<string, unknown>, key: string, value: unknown) =>
  JSON.stringify(value) === JSON.stringify(extras[key]);

/** Fields of the record that took a planted value the request without extras did not give. */
function assigned(record: unknown, baseline: unknown, extras: Record<string, unknown>): string[] {
  if (!record || typeof record !== 'object') return [];
  const r = record as Record<string, unknown>;
  const b = (baseline ?? {}) as Record<string, unknown>;
  return Object.keys(extras).filter((k) => k in r && planted(extras, k, r[k]) && !planted(extras, k, b[k]));
}

function sentinelsIn(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return SENTINEL_STRINGS.filter((s) => value.includes(s)).map((s) => `${path}~${s}`);
  if (value === SENTINEL_NUMBER) return [`${path}=${SENTINEL_NUMBER}`];
  if (Array.isArray(value)) return value.flatMap((v, i) => sentinelsIn(v, `${path}[${i}]`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => sentinelsIn(v, `${path}.${k}`));
  return [];
}

describe('fields a route does not name change nothing', () => {
  it.each(bodyRoutes.map((r) => [r.id, r] as const))('%s', async (_id, route) => {
    const named = new Set(Object.keys(schemaFields(route, 'body')));
    const allExtras = extrasFor(world);
    const extras = Object.fromEntries(Object.entries(allExtras).filter(([k]) => !named.has(k)));
    const plain = await semanticRequest(route, world);
    const baseline = await send(route, plain, JSON.stringify(plain.body));
    const req = await semanticRequest(route, world);
    const params = req.params;
    const body = { ...req.body, ...extras };
    // A `__proto__` key too, which JSON.stringify of an object literal would drop.
    const raw = JSON.stringify(body).replace(/^\{/, '{"__proto__":{"isAdmin":true,"roles":["SystemAdmin"]},');
    spy.take();
    const res: InvokeResult = await send(route, req, raw);
    const writes = spy.take();
    const where = `${route.id}: ${res.status} ${res.text.slice(0, 300)}`;

    expect(errorEnvelopeProblem(res), where).toBeNull();
    expect(res, `${where} (without the extra fields: ${baseline.status})`).toAnswer(baseline.status);
    expect(({} as Record<string, unknown>).isAdmin, 'Object.prototype polluted').toBeUndefined();
    expect(assigned(res.json?.result, baseline.json?.result, extras), `${where} answer took planted fields`).toEqual(
      [],
    );
    const readBack: string[] = [];
    if (res.status < 300) {
      for (const path of readBackPaths(route, params, res.json?.result)) {
        const got = await invoke('GET', path, { ...req.creds, ip: nextIp() });
        if (got.status !== 200) continue;
        readBack.push(path);
        expect(
          assigned(got.json?.result, baseline.json?.result, extras),
          `${route.id} read back at ${path} took planted fields`,
        ).toEqual([]);
      }
      // Collections without a GET by id: the record as the list shows it.
      const list = routesUnderTest().find(
        (r) => r.method === 'GET' && r.path === route.path && !pathParamNames(r).length,
      );
      const id = res.json?.result?.id;
      if (route.method === 'POST' && list && typeof id === 'string') {
        const got = await invoke('GET', `${route.path}?pageSize=100`, { ...req.creds, ip: nextIp() });
        const item = (got.json?.result?.items as { id: string }[] | undefined)?.find((i) => i.id === id);
        if (item) {
          readBack.push(`${route.path} (list)`);
          expect(assigned(item, baseline.json?.result, extras), `${route.id} as listed took planted fields`).toEqual(
            [],
          );
        }
      }
    }
    const foreign = writes.filter((w) => w.key.startsWith(`${world.b.id}#`));
    expect(
      foreign.map((w) => w.key),
      `${route.id} wrote into another tenant`,
    ).toEqual([]);
    const stored = writes.flatMap((w) => sentinelsIn(w.item, w.key));
    expect(stored, `${route.id} stored planted values`).toEqual([]);
    report.push(
      `${route.id}: ${Object.keys(extras).length} planted fields, answer ${res.status}${readBack.length ? `, read back at ${readBack.join(', ')}` : ''}`,
    );
  });

  it('no item of the table holds a planted value', async () => {
    const found = (await scanTable()).flatMap((item) => sentinelsIn(item, `${String(item.pk)}|${String(item.sk)}`));
    expect(found).toEqual([]);
  });
});
