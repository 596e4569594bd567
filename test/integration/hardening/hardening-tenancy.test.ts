import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '#shared/routes/types.ts';
import { errorCode, errorEnvelopeProblem, storageAttributeIn } from '#test/support/fuzz/checks.ts';
import {
  buildPath,
  queryString,
  recordParams,
  recordRefs,
  sampleValid,
  takesJsonBody,
  tenantIdPlaces,
} from '#test/support/fuzz/route-matrix.ts';
import { diff, snapshot, type Snapshot } from '#test/support/fuzz/table.ts';
import { tenancyPlan, type TenancyCase } from '#test/support/fuzz/tenancy-matrix.ts';
import { spyOnWrites } from '#test/support/fuzz/write-spy.ts';
import {
  createWorld,
  creatorAvailable,
  nextIp,
  recordKind,
  type Tenant,
  type World,
} from '#test/support/fuzz/world.ts';
import { invoke } from '#test/support/invoke.ts';
import { checkAnswersAgainstDocument } from '#test/support/document-check.ts';

/** Every answer below is checked against the API document (the last test lists departures). */
const documentCheck = checkAnswersAgainstDocument();

/**
 * Tenant B's owner, the strongest tenant caller, aims every tenant
 * route of the table at tenant A: A's `tenantId` in the query or body is 403, A's record ids in
 * the path are 404, A's records referenced from the query or body are refused, and no read of B's
 * shows anything of A's. Tenant A's partitions are byte-identical afterwards.
 */
const plan = tenancyPlan();
let world: World;
let spy: ReturnType<typeof spyOnWrites>;
const records: Record<'a' | 'b', Record<string, string>> = { a: {}, b: {} };
let beforeA: Snapshot;
let calls = 0;
const outcomes: string[] = [];

const ofTenant = (t: Tenant) => (key: string) => key.startsWith(`${t.id}#`) || key === `PLATFORM#TENANT|${t.id}`;

beforeAll(async () => {
  world = await createWorld();
  for (const kind of plan.recordKinds) {
    const c = creatorAvailable(kind);
    if (!c.ok) throw new Error(c.reason);
    records.a[kind] = await c.creator.create(world, world.a);
    records.b[kind] = await c.creator.create(world, world.b);
  }
  const all = await snapshot();
  beforeA = new Map([...all].filter(([k]) => ofTenant(world.a)(k)));
  spy = spyOnWrites();
});

afterAll(() => {
  spy?.restore();
  const kinds = new Map<string, number>();
  for (const c of plan.cases) kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
  console.log(
    `[hardening] tenancy: ${plan.cases.length} cases over ${new Set(plan.cases.map((c) => c.route.id)).size} routes, ${calls} cross-tenant calls, ${JSON.stringify(Object.fromEntries(kinds))}`,
  );
  for (const s of plan.skipped) console.log(`[hardening] tenancy: skipped ${s.route}: ${s.reason}`);
  for (const o of outcomes) console.log(`[hardening] tenancy: ${o}`);
});

/** Values that make a sampled request succeed for its owner (existing role names, fresh unique values). */
function semanticBody(route: RouteDef, body: unknown) {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const b = { ...(body as Record<string, unknown>) };
  const tag = crypto.randomUUID().slice(0, 8);
  if ('roles' in b) b.roles = ['TenantMember'];
  if ('permissions' in b) b.permissions = ['suppliers:read'];
  if ('email' in b) b.email = `x-${tag}@example.com`;
  // A WhatsApp template's name is Meta's: lowercase letters, digits, `_`.
  if ('name' in b) b.name = route.id === 'connector.templates.create' ? `t_${tag}` : `Name ${tag}`;
  if ('code' in b) b.code = `C-${tag}`;
  return b;
}

/** B's owner's request: B's own records everywhere, then the overrides of the case. */
function request(
  route: RouteDef,
  over: {
    params?: 'a' | 'b';
    refs?: Record<string, 'a' | 'b'>;
    tenantId?: { where: 'query' | 'body'; id: string };
    upper?: boolean;
    token?: string;
  },
) {
  const cased = (v: string | undefined) => (over.upper && v ? v.toUpperCase() : v);
  const parts = sampleValid(route);
  const params: Record<string, unknown> = { ...parts.params };
  for (const name of recordParams(route)) {
    const value = records[over.params ?? 'b'][recordKind(route, name)];
    params[name] = name === 'slug' ? value : cased(value);
  }
  const query: Record<string, unknown> = { ...parts.query };
  let body = semanticBody(route, parts.body) as Record<string, unknown> | undefined;
  delete query.tenantId;
  if (body && 'tenantId' in body) body = { ...body, tenantId: world.b.id };
  for (const ref of recordRefs(route)) {
    const value = records[over.refs?.[ref.name] ?? 'b'][recordKind(route, ref.name)];
    if (ref.where === 'query') query[ref.name] = value;
    else body = { ...body, [ref.name]: value };
  }
  if (over.tenantId?.where === 'query') query.tenantId = cased(over.tenantId.id);
  if (over.tenantId?.where === 'body') body = { ...body, tenantId: cased(over.tenantId.id) };
  const q = queryString(query);
  return invoke(route.method, `${buildPath(route, params)}${q ? `?${q}` : ''}`, {
    // A widget route's caller is B's visitor: B's widget session instead of a token.
    ...(route.auth.kind === 'widgetSession'
      ? { headers: { 'x-widget-session': world.b.widgetSession } }
      : { token: over.token ?? world.b.owner }),
    ...(takesJsonBody(route) ? { body } : {}),
    ip: nextIp(),
  });
}

// A value B has too (the seeded plan both subscribed to) cannot be a leak of A's.
const aValues = () => [
  world.a.id,
  world.a.slug,
  world.a.ownerUserId,
  ...Object.entries(records.a)
    .filter(([k, v]) => records.b[k] !== v)
    .map(([, v]) => v),
];

/** Each case as sent, and again with the foreign ids in upper case (ids are compared lower-cased). */
async function run(c: TenancyCase) {
  for (const upper of [false, true]) {
    if (upper && (c.kind === 'read-leak' || c.kind === 'foreign-reference')) continue;
    await runOnce(c, upper);
  }
}

async function runOnce(c: TenancyCase, upper: boolean) {
  spy.take();
  const res =
    c.kind === 'foreign-tenantId'
      ? await request(c.route, { tenantId: { where: c.where, id: world.a.id }, upper })
      : c.kind === 'foreign-path-record'
        ? await request(c.route, { params: 'a', upper })
        : c.kind === 'admin-other-tenant-record'
          ? await request(c.route, {
              params: 'a',
              upper,
              token: world.admin,
              tenantId: { where: 'query', id: world.b.id },
            })
          : c.kind === 'admin-by-id'
            ? await request(c.route, { params: 'a', upper, token: world.admin })
            : c.kind === 'foreign-reference'
              ? await request(c.route, { refs: { [c.name]: 'a' } })
              : await request(c.route, {});
  calls++;
  const writes = spy.meaningful(spy.take());
  const where = `${c.route.id} ${c.kind}${upper ? ' (upper case)' : ''}${'name' in c ? ` ${c.where}.${c.name}` : 'where' in c ? ` ${c.where}` : ''}: ${res.status} ${res.text.slice(0, 300)}`;
  expect(errorEnvelopeProblem(res), where).toBeNull();
  // A successful answer (the real records of B, or A's to a SystemAdmin) carries no storage attribute.
  if (res.status < 300) expect(storageAttributeIn(res.json), where).toBeNull();
  const leaked = aValues().filter((v) => res.text.includes(v));
  switch (c.kind) {
    case 'foreign-tenantId':
      expect(res, where).toAnswer(403);
      expect(errorCode(res), where).toBe('FORBIDDEN');
      break;
    case 'foreign-path-record':
    case 'admin-other-tenant-record':
      expect(res, where).toAnswer(404);
      expect(errorCode(res), where).toBe('NOT_FOUND');
      break;
    case 'foreign-reference':
      // A referenced record of another tenant does not exist for this caller: refused (404 or a
      // validation-style 400), or for a read an answer that shows nothing of it.
      if (c.route.method === 'GET' && res.status === 200) {
        outcomes.push(`${c.route.id}: foreign ${c.where}.${c.name} on a read answers 200 without A's data`);
      } else {
        expect([400, 404], where).toContain(res.status);
        outcomes.push(`${c.route.id}: foreign ${c.where}.${c.name} -> ${res.status} ${errorCode(res)}`);
      }
      break;
    case 'read-leak':
      expect(res.status, where).toBeLessThan(300);
      break;
    case 'admin-by-id':
      expect(res, where).toAnswer(200);
      return;
  }
  if (c.kind !== 'foreign-reference' || res.status !== 200) expect(leaked, `${where} shows A's values`).toEqual([]);
  else
    expect(
      leaked.filter((v) => v !== records.a[recordKind(c.route, (c as { name: string }).name)]),
      `${where} shows A's values`,
    ).toEqual([]);
  if (res.status >= 400)
    expect(
      writes.map((w) => w.key),
      `${where} wrote`,
    ).toEqual([]);
}

describe("tenant B's owner aimed at tenant A", () => {
  it('can create the records of every tenant route (a route it cannot cover fails here, never skips)', () => {
    expect(plan.uncovered).toEqual([]);
  });

  it('the matrix covers every tenant route that takes a tenantId or a record id', () => {
    const covered = new Set(plan.cases.map((c) => `${c.kind}:${c.route.id}`));
    const skippedIds = new Set(plan.skipped.map((s) => s.route));
    for (const c of plan.cases) {
      for (const where of tenantIdPlaces(c.route))
        expect(covered.has(`foreign-tenantId:${c.route.id}`), `${c.route.id} ${where}`).toBe(true);
      if (recordParams(c.route).length) expect(covered.has(`foreign-path-record:${c.route.id}`)).toBe(true);
    }
    expect(plan.cases.length + skippedIds.size).toBeGreaterThan(0);
  });

  it.each(
    plan.cases.map(
      (c) =>
        [
          `${c.route.id} ${c.kind}${'name' in c ? ` ${c.where}.${c.name}` : 'where' in c ? ` ${c.where}` : ''}`,
          c,
        ] as const,
    ),
  )('%s', async (_n, c) => {
    await run(c);
  });

  it("leaves tenant A's partitions byte-identical", async () => {
    const all = await snapshot();
    const afterA = new Map([...all].filter(([k]) => ofTenant(world.a)(k)));
    const d = diff(beforeA, afterA);
    expect(d).toEqual({ added: [], removed: [], changed: [] });
  });

  it("A's records are still there for A", async () => {
    const got = await invoke('GET', `/api/tenants/${world.a.slug}`, { token: world.a.owner });
    expect(got).toAnswer(200);
    if (records.a.supplierId)
      expect((await invoke('GET', `/api/suppliers/${records.a.supplierId}`, { token: world.a.owner })).status).toBe(
        200,
      );
    if (records.a.userId)
      expect((await invoke('GET', `/api/users/${records.a.userId}`, { token: world.a.owner })).status).toBe(200);
  });
});

describe('the API document', () => {
  it('describes every answer this file received (status, content type, body)', () => {
    documentCheck.stop();
    expect(documentCheck.answers()).toBeGreaterThan(0);
    expect(documentCheck.departures()).toEqual([]);
  });
});
