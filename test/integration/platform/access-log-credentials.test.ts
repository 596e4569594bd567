import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { routes as allRoutes } from '#local/routes.ts';
import { logger } from '#shared/runtime/logger.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { newCalendar } from '#test/support/calendars.ts';

/**
 * A path that carries a credential (the calendar feed's secret) is logged without it: the access
 * line holds the route's template with a short digest in the secret's place.
 */
let owner: string;

beforeAll(async () => {
  owner = await tokenFor({ tenantId: await newTenant({ planType: 2, maxAgents: 5 }) });
});

afterEach(() => vi.restoreAllMocks());

function accessLines() {
  const lines: unknown[][] = [];
  vi.spyOn(logger, 'info').mockImplementation((...args: unknown[]) => void lines.push(args));
  return lines;
}

describe('the access log and credentials in paths', () => {
  it('writes a feed request without its secret token, answered or not', async () => {
    const c = await newCalendar(owner);
    const path = new URL(c.feedUrl).pathname;
    const token = path
      .split('/')
      .pop()!
      .replace(/\.ics$/, '');
    const lines = accessLines();
    expect(await invoke('GET', path)).toAnswer(200);
    expect(await invoke('GET', path.replace(token, `${token.slice(0, -4)}AAAA`))).toAnswer(404);
    const logged = lines.filter(([message]) => message === 'request');
    expect(logged).toHaveLength(2);
    const text = JSON.stringify(logged);
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.slice(0, 16));
    expect(logged[0]![1]).toMatchObject({
      route: 'ai.calendars.feed',
      path: expect.stringMatching(/^\/api\/calendar-feeds\/\{feedToken:[0-9a-f]{8}\}$/),
    });
  });

  it('declares every path parameter named like a credential', () => {
    const credentialLike = /token|secret|key$|password|signature|botPath|sessionId/i;
    const undeclared = allRoutes.flatMap((r) =>
      [...r.path.matchAll(/\{(\w+)\}/g)]
        .map((m) => m[1]!)
        .filter((p) => credentialLike.test(p) && !r.credentialParams?.includes(p))
        .map((p) => `${r.id} {${p}}`),
    );
    expect(undeclared).toEqual(['vault.get {key}', 'vault.put {key}', 'vault.delete {key}']);
  });
});
