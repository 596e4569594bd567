import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, errorEnvelopeProblem, leakIn, stats, storageAttributeIn } from '#test/support/fuzz/checks.ts';
import { mutatedRequestArb, type FuzzRequest, type Pins } from '#test/support/fuzz/mutations.ts';
import { deployedRoutes } from '#api/routes.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import {
  buildPath,
  isSystemAdminOnly,
  match,
  recordParams,
  routesUnderTest,
  sampleValid,
  schemaFields,
  SEED,
  tenantIdPlaces,
} from '#test/support/fuzz/route-matrix.ts';
import { diff, IGNORED_WRITES, snapshot, type Snapshot } from '#test/support/fuzz/table.ts';
import { spyOnWrites } from '#test/support/fuzz/write-spy.ts';
import { createWorld, creatorAvailable, credentialsFor, nextIp, type World } from '#test/support/fuzz/world.ts';
import { invoke, type InvokeOptions } from '#test/support/invoke.ts';
import { checkAnswersAgainstDocument } from '#test/support/document-check.ts';

/** Every answer below is checked against the API document (the last test lists departures). */
const documentCheck = checkAnswersAgainstDocument();

/**
 * Every route of the table gets requests built from its own schemas and then
 * mutated (wrong types, missing and extra fields, huge strings and arrays, deep nesting, unicode
 * and control characters, numbers out of range, invalid path ids, malformed JSON, wrong content
 * types, bodies over the limit), with the strongest legitimate credentials so input reaches
 * validation. Every answer is either a success for input the schemas accept, or a 4xx in the
 * envelope without stack or AWS text; a rejected request writes nothing.
 *
 * "Writes nothing" is proven twice: each request's completed DynamoDB writes are recorded by a
 * test-side spy on the client (a refused request must have none), and the whole table is scanned
 * before the first run and after the last: every item that differs must have been written by one
 * of the accepted requests (two scans, not two per route: a scan of the grown table costs more than
 * a route's run). Both apply the ignore list of table.ts (rate-limit counters, refusal
 * audit entries and their counter).
 */
/** 25 runs per route keep `npm test` within its budget; a deeper run sets HARDENING_RUNS (docs/hardening.md). */
const RUNS = Number(process.env.HARDENING_RUNS ?? 25);
fc.configureGlobal({ seed: SEED, numRuns: RUNS });
/** Routes whose valid requests hash a password (scrypt, on purpose slow) get a third of the runs. */
const hashesPassword = (route: RouteDef) => Object.keys(schemaFields(route, 'body')).some((k) => /password/i.test(k));
const runsFor = (route: RouteDef) => (hashesPassword(route) ? Math.ceil(RUNS / 3) : RUNS);

let world: World;
let spy: ReturnType<typeof spyOnWrites>;
let refused = 0;
let tableScans = 0;
let before: Snapshot;
const writtenByAccepted = new Set<string>();

/** Records of tenant A that path parameters can name (half of the runs use them). */
const records: Record<string, string> = {};

beforeAll(async () => {
  world = await createWorld();
  for (const name of new Set(routesUnderTest().flatMap(recordParams))) {
    const c = creatorAvailable(name);
    if (c.ok) records[name] = await c.creator.create(world, world.a);
  }
  before = await snapshot();
  tableScans++;
  spy = spyOnWrites();
});

afterAll(() => {
  spy?.restore();
  stats.print('bad input', { runsPerRoute: RUNS, seed: SEED, refused, tableScans });
  console.log(`[hardening] bad input: ignored writes: ${IGNORED_WRITES.map((w) => w.rule).join('; ')}`);
});

const describeRequest = (req: FuzzRequest) =>
  `${req.mutation} :: ${req.method} ${req.path}${req.rawQuery ? `?${req.rawQuery.slice(0, 200)}` : ''}` +
  (req.rawBody !== undefined ? ` body(${req.rawBody.length}) ${req.rawBody.slice(0, 200)}` : '') +
  (req.contentType !== undefined ? ` content-type ${JSON.stringify(req.contentType)}` : '');

async function fuzz(route: RouteDef, creds: Pick<InvokeOptions, 'token' | 'headers'>, numRuns: number) {
  // A SystemAdmin's own path to another tenant's slug is fine; tenant A's slug is pinned only for its owner's routes.
  const pins: Pins = { tenantId: world.a.id, records: isSystemAdminOnly(route) ? { ...records, slug: '' } : records };
  // Stand-ins for external providers answer in their protocol's own error format, not the envelope.
  const protocolErrors = !!route.rawResponse && route.localOnly;
  spy.take();
  await fc.assert(
    fc.asyncProperty(mutatedRequestArb(route, pins), async (req) => {
      const res = await invoke(req.method, `${req.path}${req.rawQuery ? `?${req.rawQuery}` : ''}`, {
        ...creds,
        ...(req.rawBody !== undefined ? { rawBody: req.rawBody } : {}),
        ...(req.contentType !== undefined ? { contentType: req.contentType } : {}),
        ip: nextIp(),
      });
      const writes = spy.take();
      stats.count(route.id, res);
      const where = `${describeRequest(req)} -> ${res.status} ${res.text.slice(0, 300)}`;
      const problem = protocolErrors
        ? res.status >= 500
          ? `status ${res.status}`
          : res.status >= 400 && leakIn(res.text)
            ? `leaks ${leakIn(res.text)}`
            : null
        : errorEnvelopeProblem(res);
      if (problem) throw new Error(`${problem}: ${where}`);
      const stored = res.status < 300 ? storageAttributeIn(res.json) : null;
      if (stored) throw new Error(`the answer carries the storage attribute ${stored}: ${where}`);
      if (req.valid === false && res.status < 400) throw new Error(`input the schemas refuse was accepted: ${where}`);
      if (res.status >= 400) {
        refused++;
        const wrote = spy.meaningful(writes);
        if (wrote.length)
          throw new Error(
            `a refused request wrote ${JSON.stringify(wrote.map((w) => `${w.command} ${w.key}`))}: ${where}`,
          );
      } else {
        for (const w of writes) writtenByAccepted.add(w.key);
      }
    }),
    { endOnFailure: true, numRuns },
  );
}

describe('bad input never breaks a route', () => {
  for (const route of routesUnderTest()) {
    it(`${route.id} (${route.method} ${route.path})`, () => fuzz(route, credentialsFor(route, world), runsFor(route)));
  }
});

describe('bad input from a SystemAdmin, who may name any tenant', () => {
  // A platform administrator's tenantId is looked up instead of compared: another code path.
  for (const route of routesUnderTest().filter((r) => tenantIdPlaces(r).length && !isSystemAdminOnly(r))) {
    it(`${route.id} as SystemAdmin`, () => fuzz(route, { token: world.admin }, Math.ceil(runsFor(route) / 3)));
  }
});

describe('the table after every run', () => {
  it('has no item changed that no accepted request wrote', async () => {
    const after = await snapshot();
    tableScans++;
    const d = diff(before, after);
    const unexplained = [...d.added, ...d.removed, ...d.changed].filter((k) => !writtenByAccepted.has(k));
    expect(unexplained.map((k) => after.get(k)?.slice(0, 300) ?? k)).toEqual([]);
  });
});

describe('a method a path does not serve', () => {
  // Deployed routes only: API Gateway's $default (the fallback function) knows only those, so a
  // local-only provider path under another method is 404 there by design.
  // Under the gateway's /v1 the envelope is OpenAI's, and the code method_not_allowed (errorCode reads both).
  it('is 405 METHOD_NOT_ALLOWED with Allow, in the envelope, on every deployed path', async () => {
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
    let checked = 0;
    // One probe per path: the routes that share a path answer it alike, and the router answers every
    // method a path does not serve the same way; which method is probed turns from path to path.
    const probed = new Set<string>();
    for (const route of deployedRoutes) {
      if (probed.has(route.path)) continue;
      probed.add(route.path);
      const path = buildPath(route, sampleValid(route).params);
      const unserved = methods.filter((m) => match(m, path).kind === 'method-not-allowed');
      if (!unserved.length) continue;
      const method = unserved[probed.size % unserved.length]!;
      const res = await invoke(method, path, { ...credentialsFor(route, world), rawBody: '{}', ip: nextIp() });
      stats.count(route.id, res);
      checked++;
      const where = `${method} ${path}: ${res.status} ${res.text.slice(0, 200)}`;
      if (res.status !== 405 || errorCode(res) !== 'METHOD_NOT_ALLOWED' || !res.headers.allow) throw new Error(where);
      const problem = errorEnvelopeProblem(res);
      if (problem) throw new Error(`${problem}: ${where}`);
    }
    if (!checked) throw new Error('no path/method pair checked');
    // Every deployed path that does not serve every method: it grows with the paths.
  }, 180_000);
});

describe('the API document', () => {
  it('describes every answer this file received (status, content type, body)', () => {
    documentCheck.stop();
    expect(documentCheck.answers()).toBeGreaterThan(0);
    expect(documentCheck.departures()).toEqual([]);
  });
});
