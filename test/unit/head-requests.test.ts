import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#local/routes.ts';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import { servesHead } from '#shared/routes/head.ts';
import { localListener } from '#test/support/local-listener.ts';

/**
 * HEAD where a public GET is served (the widget script a CDN or a link checker probes): the GET's
 * status and headers, no body. Authenticated GET routes do not take HEAD (the API's route quota).
 */
const GET_ANSWER = { statusCode: 200, headers: { 'content-type': 'text/javascript', etag: '"v1"' }, body: 'widget();' };
let local: Awaited<ReturnType<typeof localListener>>;
beforeAll(async () => {
  local = await localListener(async () => GET_ANSWER);
});
afterAll(() => local.close());

describe('HEAD requests', () => {
  it('match the GET route of a public path, and only there', () => {
    const match = createRouteMatcher(routes, { headServedBy: servesHead });
    expect(match('HEAD', '/api/ai/widget.js')).toMatchObject({
      kind: 'route',
      route: { method: 'GET', path: '/api/ai/widget.js' },
    });
    expect(match('HEAD', '/api/calendar-feeds/abc.ics')).toMatchObject({
      kind: 'route',
      route: { id: 'ai.calendars.feed' },
    });
    expect(match('HEAD', '/api/ai/calendars')).toMatchObject({ kind: 'method-not-allowed' });
    expect(createRouteMatcher(routes)('HEAD', '/api/ai/widget.js')).toMatchObject({ kind: 'method-not-allowed' });
  });

  it("answer the local server's HEAD with the GET's status and headers and no body", async () => {
    const get = await fetch(`${local.base}/api/ai/widget.js`);
    const head = await fetch(`${local.base}/api/ai/widget.js`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const name of ['content-type', 'etag', 'content-length'])
      expect(head.headers.get(name), name).toBe(get.headers.get(name));
    expect(local.calls.slice(-1)).toEqual(['agents HEAD /api/ai/widget.js']);
  });
});
