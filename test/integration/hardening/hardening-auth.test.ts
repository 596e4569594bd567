import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_ROLE_PERMISSIONS } from '#shared/auth/permissions.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { errorCode, errorEnvelopeProblem } from '#test/support/fuzz/checks.ts';
import { forgedTokens, MALFORMED_AUTHORIZATION } from '#test/support/fuzz/forge.ts';
import {
  buildPath,
  isProtected,
  isSystemAdminOnly,
  queryString,
  routesUnderTest,
  sampleValid,
  takesJsonBody,
} from '#test/support/fuzz/route-matrix.ts';
import { spyOnWrites } from '#test/support/fuzz/write-spy.ts';
import { createWorld, INTERNAL_KEY, nextIp, PASSWORD, seedUser, type World } from '#test/support/fuzz/world.ts';
import { invoke, type InvokeOptions } from '#test/support/invoke.ts';
import { checkAnswersAgainstDocument } from '#test/support/document-check.ts';

/** Every answer below is checked against the API document (the last test lists departures). */
const documentCheck = checkAnswersAgainstDocument();

/**
 * Every protected route of the table refuses missing,
 * malformed and forged credentials with 401, and callers without the role or permission with 403,
 * writing nothing either way. The matrix is built from each route's `auth` rule.
 */
let world: World;
let spy: ReturnType<typeof spyOnWrites>;
let forged: Awaited<ReturnType<typeof forgedTokens>>;
let calls = 0;
const byStatus = { 401: 0, 403: 0 };
const skipped: string[] = [];

const protectedRoutes = routesUnderTest().filter(isProtected);

beforeAll(async () => {
  world = await createWorld();
  forged = await forgedTokens({
    sub: world.a.ownerUserId,
    tid: world.a.id,
    roles: ['SystemAdmin', 'TenantOwner'],
    perms: [...SYSTEM_ROLE_PERMISSIONS.SystemAdmin],
    email: 'owner@example.com',
  });
  spy = spyOnWrites();
});

afterAll(() => {
  spy?.restore();
  console.log(
    `[hardening] auth: ${protectedRoutes.length} protected routes, ${calls} refused calls (${byStatus[401]} expecting 401, ${byStatus[403]} expecting 403, plus the revoked-session flow)`,
  );
  for (const s of skipped) console.log(`[hardening] auth: skipped ${s}`);
});

/** A request the route would accept from the right caller, so only the credentials differ. */
function call(route: RouteDef, opts: Pick<InvokeOptions, 'token' | 'headers'>) {
  const parts = sampleValid(route);
  const q = queryString(parts.query);
  return invoke(route.method, `${buildPath(route, parts.params)}${q ? `?${q}` : ''}`, {
    ...opts,
    ...(takesJsonBody(route) ? { body: parts.body } : {}),
    ip: nextIp(),
  });
}

async function expectRefused(
  route: RouteDef,
  opts: Pick<InvokeOptions, 'token' | 'headers'>,
  status: 401 | 403,
  what: string,
) {
  spy.take();
  const res = await call(route, opts);
  calls++;
  byStatus[status]++;
  const where = `${route.id} ${what}: ${res.status} ${res.text.slice(0, 200)}`;
  expect(res, where).toAnswer(status);
  expect(errorEnvelopeProblem(res), where).toBeNull();
  expect(errorCode(res), where).toBe(status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN');
  expect(
    spy.meaningful(spy.take()).map((w) => w.key),
    `${where} wrote`,
  ).toEqual([]);
}

const keyHeader = (route: RouteDef): Record<string, string> =>
  route.auth.kind === 'internalKey' ? { 'x-internal-api-key': INTERNAL_KEY } : {};
const needsBearer = (route: RouteDef) =>
  route.auth.kind === 'bearer' || (route.auth.kind === 'internalKey' && !!route.auth.roles?.length);

describe('no, malformed or forged credentials: 401 on every protected route', () => {
  it.each(protectedRoutes.map((r) => [r.id, r] as const))('%s', async (_id, route) => {
    await expectRefused(route, {}, 401, 'without credentials');
    if (route.auth.kind === 'internalKey') {
      const bearer = route.auth.roles?.length ? { token: world.admin } : {};
      await expectRefused(
        route,
        { ...bearer, headers: { 'x-internal-api-key': 'wrong-key' } },
        401,
        'with a wrong internal key',
      );
      await expectRefused(
        route,
        { ...bearer, headers: { 'x-internal-api-key': '' } },
        401,
        'with an empty internal key',
      );
      await expectRefused(
        route,
        { ...bearer, headers: { 'x-internal-api-key': `${INTERNAL_KEY} ` } },
        401,
        'with the key plus a space',
      );
    }
    if (!needsBearer(route)) return;
    for (const { name, token, expiredOnly } of forged) {
      if (expiredOnly && route.auth.kind === 'bearer' && route.auth.allowExpired) {
        if (!skipped.some((s) => s.startsWith(route.id)))
          skipped.push(`${route.id} accepts an expired (well-signed) access token by design: it is the refresh route`);
        continue;
      }
      await expectRefused(route, { token, headers: keyHeader(route) }, 401, `with a token: ${name}`);
    }
    for (const value of MALFORMED_AUTHORIZATION) {
      await expectRefused(
        route,
        { headers: { ...keyHeader(route), authorization: value } },
        401,
        `with Authorization ${JSON.stringify(value.slice(0, 30))}`,
      );
    }
  });
});

/** Whether the runtime's rule lets this caller in (the SystemAdmin bypass is not modelled: callers here are tenant users). */
const passes = (route: RouteDef, roles: string[], perms: readonly string[]) => {
  const auth = route.auth;
  // The gateway's /v1 takes a user's own token too, when it holds the route's permission.
  if (auth.kind === 'gatewayKey') return !auth.permission || perms.includes(auth.permission);
  if (auth.kind !== 'bearer' && auth.kind !== 'internalKey') return true;
  if (!auth.roles && !(auth.kind === 'bearer' && auth.permission)) return true;
  if (auth.roles?.some((r) => roles.includes(r))) return true;
  return auth.kind === 'bearer' && !!auth.permission && perms.includes(auth.permission);
};

describe('a caller without the role or permission: 403', () => {
  const personas = [
    {
      name: 'TenantMember',
      token: () => world.a.member,
      roles: ['TenantMember'],
      perms: SYSTEM_ROLE_PERMISSIONS.TenantMember,
    },
    {
      name: 'TenantOwner',
      token: () => world.a.owner,
      roles: ['TenantOwner'],
      perms: SYSTEM_ROLE_PERMISSIONS.TenantOwner,
    },
    { name: 'account without tenant or roles', token: () => world.loner, roles: [] as string[], perms: [] as string[] },
  ];
  const cases = personas.flatMap((p) =>
    protectedRoutes
      .filter((r) => (needsBearer(r) || r.auth.kind === 'gatewayKey') && !passes(r, p.roles, p.perms))
      .map((r) => [`${p.name} on ${r.id}`, p, r] as const),
  );

  it('covers every SystemAdmin-only route for tenant users', () => {
    const adminOnly = protectedRoutes.filter(isSystemAdminOnly).map((r) => r.id);
    const covered = new Set(cases.filter(([, p]) => p.name === 'TenantOwner').map(([, , r]) => r.id));
    expect(adminOnly.filter((id) => !covered.has(id))).toEqual([]);
  });

  it.each(cases)('%s', async (_name, persona, route) => {
    await expectRefused(route, { token: persona.token(), headers: keyHeader(route) }, 403, `as ${persona.name}`);
  });
});

describe('a revoked session cannot be refreshed', () => {
  it('logout revokes the refresh token: refreshing with it is 401, and so is reusing a rotated one', async () => {
    const user = await seedUser(world.a.id, ['TenantMember']);
    const signIn = async () => {
      const res = await invoke('POST', '/api/auth/login', {
        body: { email: user.email, password: PASSWORD },
        ip: nextIp(),
      });
      expect(res).toAnswer(200);
      return res.json.result as { accessToken: string; refreshToken: string };
    };
    const refresh = (s: { accessToken: string; refreshToken: string }) =>
      invoke('POST', '/api/auth/refresh-token', { token: s.accessToken, body: s, ip: nextIp() });

    const first = await signIn();
    const loggedOut = await invoke('POST', '/api/auth/logout', {
      token: first.accessToken,
      body: { refreshToken: first.refreshToken },
      ip: nextIp(),
    });
    expect(loggedOut).toAnswer(204);
    const afterLogout = await refresh(first);
    expect(afterLogout).toAnswer(401, 'UNAUTHORIZED');

    const second = await signIn();
    const rotated = await refresh(second);
    expect(rotated).toAnswer(200);
    const reused = await refresh(second);
    expect(reused).toAnswer(401);
    // Reuse revokes the whole family: the token it was rotated into dies too.
    const successor = await refresh({
      accessToken: rotated.json.result.accessToken,
      refreshToken: rotated.json.result.refreshToken,
    });
    expect(successor).toAnswer(401);
    calls += 3;
  });
});

describe('the API document', () => {
  it('describes every answer this file received (status, content type, body)', () => {
    documentCheck.stop();
    expect(documentCheck.answers()).toBeGreaterThan(0);
    expect(documentCheck.departures()).toEqual([]);
  });
});
