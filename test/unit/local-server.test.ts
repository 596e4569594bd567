import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiListener, type HttpHandler } from '#local/server.ts';
import { routes } from '#local/routes.ts';

/** Stand-in group handlers: each records the event and echoes what the server gave it. */
const seen: { group: string; event: APIGatewayProxyEventV2 }[] = [];
const handlers: Record<string, HttpHandler> = {
  system: async (event) => ({
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ip: event.requestContext.http.sourceIp }),
  }),
  fallback: async (event) => ({ statusCode: 404, body: JSON.stringify({ routeKey: event.routeKey }) }),
  catalog: async (event) => ({
    statusCode: 201,
    headers: { 'content-type': 'application/octet-stream' },
    cookies: ['a=1', 'b=2'],
    body: Buffer.from(event.body ?? '').toString('base64'),
    isBase64Encoded: true,
  }),
  auth: async () => {
    throw new Error('secret detail at line 42');
  },
};

let server: Server;
let base: string;
beforeAll(async () => {
  const listener = createApiListener({
    routes,
    maxBodyBytes: 1024,
    pages: { '/_local/outbox': () => [{ subject: 'hi' }] },
    loadHandler: async (group) => async (event, context) => {
      seen.push({ group, event });
      return handlers[group]!(event, context);
    },
  });
  server = createServer(listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** A request over a socket bound to `localAddress`, optionally streaming `chunks` without a length. */
function rawRequest(opts: { method: string; path: string; localAddress?: string; chunks?: Buffer[] }) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${base}${opts.path}`, { method: opts.method, localAddress: opts.localAddress }, (res) => {
      let body = '';
      res
        .setEncoding('utf8')
        .on('data', (c: string) => (body += c))
        .on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    for (const c of opts.chunks ?? []) req.write(c);
    req.end();
  });
}

describe('local HTTP server', () => {
  it('passes the TCP peer address as the source IP', async () => {
    const res = await rawRequest({ method: 'GET', path: '/api/health', localAddress: '127.0.0.2' });

    expect(res).toEqual({ status: 200, body: JSON.stringify({ ip: '127.0.0.2' }) });
    expect(seen.at(-1)!.event.routeKey).toBe('GET /api/health');
  });

  it('sends unknown routes and wrong methods to the fallback function as $default', async () => {
    const unknown = await fetch(`${base}/api/nope?x=1`);
    const wrongMethod = await fetch(`${base}/api/health`, { method: 'DELETE' });

    expect([unknown.status, wrongMethod.status]).toEqual([404, 404]);
    expect(await unknown.json()).toEqual({ routeKey: '$default' });
    expect(seen.at(-1)).toMatchObject({
      group: 'fallback',
      event: { rawPath: '/api/health', requestContext: { http: { method: 'DELETE' } } },
    });
  });

  it('gives the handler the body and decodes a base64 result, cookies becoming Set-Cookie', async () => {
    const res = await fetch(`${base}/api/suppliers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"x"}',
    });

    expect(res.status).toBe(201);
    expect(await res.text()).toBe('{"name":"x"}');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(seen.at(-1)!.event).toMatchObject({
      routeKey: 'POST /api/suppliers',
      body: '{"name":"x"}',
      isBase64Encoded: false,
    });
  });

  it('answers 413 in the envelope for a body over the limit, declared or streamed, without calling a handler', async () => {
    const before = seen.length;
    const declared = await fetch(`${base}/api/suppliers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(2048),
    });
    const streamed = await rawRequest({
      method: 'POST',
      path: '/api/suppliers',
      chunks: [Buffer.alloc(800), Buffer.alloc(800)],
    });

    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(streamed).toAnswer(413);
    expect(JSON.parse(streamed.body)).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(seen.length).toBe(before);
  });

  it('turns an uncaught error into a 500 INTERNAL_ERROR envelope without details', async () => {
    const res = await fetch(`${base}/api/auth/login`, { method: 'POST', body: '{}' });
    const text = await res.text();

    expect(res.status).toBe(500);
    expect(JSON.parse(text)).toEqual({
      success: false,
      error: { code: 'INTERNAL_ERROR', message: 'An unexpected error occurred' },
    });
    expect(text).not.toContain('line 42');
  });

  it('serves local pages as plain JSON', async () => {
    const res = await fetch(`${base}/_local/outbox`);

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ subject: 'hi' }]);
  });
});

describe('stream routes', () => {
  it("resolve the group's streaming front door once, however many requests it serves", async () => {
    let loads = 0;
    const listener = createApiListener({
      routes,
      loadStreamHandler: async () => {
        loads++;
        return async (_event, sink) => {
          sink.writeHead(200, { 'content-type': 'text/plain' });
          sink.end('streamed');
        };
      },
    });
    const streamServer = createServer(listener);
    await new Promise<void>((r) => streamServer.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(streamServer.address() as AddressInfo).port}/api/llm-gateway/v1/models`;
    try {
      for (let i = 0; i < 3; i++) expect(await (await fetch(url)).text()).toBe('streamed');
      expect(loads).toBe(1);
    } finally {
      await new Promise<void>((r) => streamServer.close(() => r()));
    }
  });
});
