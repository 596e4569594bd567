import { describe, expect, expectTypeOf, it } from 'vitest';
import { lambdaContext, toApiGatewayEvent } from '#local/apigw-event.ts';
import { agentUnavailable } from '#areas/agents/errors.ts';
import {
  ApiError,
  conflict,
  defineError,
  methodNotAllowed,
  notFound,
  rateLimited,
  serviceUnavailable,
  validationError,
} from '#shared/http/errors.ts';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import { defineRoutes } from '#shared/routes/types.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';

describe('defineError', () => {
  const closed = defineError(409, 'THING_CLOSED', 'The thing is closed');
  const moved = defineError(409, 'THING_MOVED', (from: string, to: string) => `The thing went from ${from} to ${to}`, {
    example: ['A', 'B'],
  });
  const busy = defineError(503, 'THING_BUSY', 'Try again', { retryAfterSeconds: 2 });

  it('builds the ApiError and carries its status and code for routes to declare', () => {
    const err = closed();
    expect(err).toBeInstanceOf(ApiError);
    expect([err.status, err.code, err.message, err.headers]).toEqual([
      409,
      'THING_CLOSED',
      'The thing is closed',
      undefined,
    ]);
    expect([closed.status, closed.code, closed.message, closed.retryAfter]).toEqual([
      409,
      'THING_CLOSED',
      'The thing is closed',
      false,
    ]);
    expectTypeOf(closed.code).toEqualTypeOf<'THING_CLOSED'>();
  });

  it("builds the message from the call's arguments, and the document's example from the example ones", () => {
    expect(moved('Open', 'Closed').message).toBe('The thing went from Open to Closed');
    expect(moved.message).toBe('The thing went from A to B');
    expectTypeOf(moved).parameters.toEqualTypeOf<[from: string, to: string]>();
  });

  it("builds the document's example message when it is read, never when the error is defined", () => {
    let calls = 0;
    const full = defineError(409, 'BENCH_FULL', (chunks: number = 1_000_000) => {
      calls++;
      return `${chunks.toLocaleString('en-US')} chunks`;
    });
    // Defined at import in every function: a message that formats numbers would start Intl there.
    expect(calls).toBe(0);
    expect(full.message).toBe('1,000,000 chunks');
    expect(full.message).toBe('1,000,000 chunks');
    expect(calls).toBe(1);
    expect(full(12).message).toBe('12 chunks');
  });

  it('sends Retry-After in seconds when the definition says when to retry', () => {
    expect(busy().headers).toEqual({ 'retry-after': '2' });
    expect(busy.retryAfter).toBe(true);
    // The agent runtime's, wherever an agent turn fails (widget, channel, playground).
    expect(agentUnavailable()).toMatchObject({
      status: 503,
      code: 'AGENT_UNAVAILABLE',
      headers: { 'retry-after': '1' },
    });
  });

  it('tells its own errors from others', () => {
    expect(closed.is(closed())).toBe(true);
    expect(closed.is(conflict('The thing is closed'))).toBe(false);
    expect(closed.is(new Error('THING_CLOSED'))).toBe(false);
  });

  it('keeps the generic helpers as they were', () => {
    expect(conflict('Slug taken')).toMatchObject({ status: 409, code: 'CONFLICT', message: 'Slug taken' });
    expect(notFound('Supplier')).toMatchObject({ status: 404, code: 'NOT_FOUND', message: 'Supplier not found' });
    expect(rateLimited(0.2).headers).toEqual({ 'retry-after': '1' });
    expect(rateLimited(61.5, 'Slow down').message).toBe('Slow down');
    expect(serviceUnavailable().headers).toEqual({ 'retry-after': '1' });
    expect(methodNotAllowed(['GET', 'PUT']).headers).toEqual({ allow: 'GET, PUT' });
    const details = [{ path: 'body.name', message: 'Required' }];
    expect(validationError(details)).toMatchObject({ status: 400, message: 'Request validation failed', details });
    expect(validationError(undefined, 'The tenant of a site cannot change').details).toBeUndefined();
  });
});

describe('under test (STRICT_RESPONSES=1), an error the route does not document', () => {
  const thingClosed = defineError(409, 'THING_CLOSED', 'The thing is closed');
  const sentinel = defineError(409, 'THING_SEEN', 'Seen before', { internal: 'caught by its own use case' });
  const route = { group: 'system', auth: { kind: 'none' }, scope: { kind: 'public' }, summary: '' } as const;
  const routes = defineRoutes([
    { ...route, id: 'declares', method: 'GET', path: '/declares', status: 200, errors: [thingClosed] },
    { ...route, id: 'silent', method: 'GET', path: '/silent', status: 200 },
    { ...route, id: 'leaks', method: 'POST', path: '/leaks', status: 200 },
    { ...route, id: 'byId', method: 'GET', path: '/things/{thingId}', status: 200 },
  ]);
  const handler = apiHandler(routes, {
    declares: async () => {
      throw thingClosed();
    },
    silent: async () => {
      throw thingClosed();
    },
    leaks: async () => {
      throw sentinel();
    },
    byId: async () => {
      throw notFound('Thing');
    },
  });
  const match = createRouteMatcher(routes);
  const call = async (method: string, path: string) => {
    const found = match(method, path);
    const event = toApiGatewayEvent({ method, path }, found.kind === 'route' ? found : null);
    const res = await handler(event, lambdaContext('unit'));
    return { status: res.statusCode, error: JSON.parse(res.body ?? '{}').error as { code: string; message: string } };
  };

  it('is answered as declared', async () => {
    expect(await call('GET', '/declares')).toEqual({
      status: 409,
      error: { code: 'THING_CLOSED', message: 'The thing is closed' },
    });
  });

  it('fails loudly: 500 naming the route and the code', async () => {
    const res = await call('GET', '/silent');
    expect(res.status).toBe(500);
    expect(res.error).toMatchObject({
      code: 'INTERNAL_ERROR',
      message: expect.stringMatching(/^silent answered 409 THING_CLOSED, which its route neither derives nor declares/),
    });
  });

  it('fails loudly for an internal sentinel that escaped its use case, even where its status is derived', async () => {
    const res = await call('POST', '/leaks');
    expect(res.status).toBe(500);
    expect(res.error.message).toEqual(expect.stringMatching(/leaks answered 409 THING_SEEN/));
  });

  it('passes the size limit, which the runtime applies to any request, a GET with a body included', async () => {
    const found = match('GET', '/silent');
    const body = JSON.stringify({ pad: 'p'.repeat(300 * 1024) });
    const event = toApiGatewayEvent({ method: 'GET', path: '/silent', body }, found.kind === 'route' ? found : null);
    expect((await handler(event, lambdaContext('unit'))).statusCode).toBe(413);
  });

  it("passes the generic code of a status the definition derives (a path parameter's 404)", async () => {
    expect(await call('GET', `/things/${crypto.randomUUID()}`)).toEqual({
      status: 404,
      error: { code: 'NOT_FOUND', message: 'Thing not found' },
    });
  });
});
