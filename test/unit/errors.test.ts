import { describe, expect, expectTypeOf, it } from 'vitest';
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
