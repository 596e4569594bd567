import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiListener } from '#local/server.ts';
import { routes } from '#local/routes.ts';
import { leakIn } from '#test/support/fuzz/checks.ts';
import { createWorld, type World } from '#test/support/fuzz/world.ts';

/**
 * Requests no client library would build, sent as raw bytes to
 * the local server's listener (the same route matching and event building as `npm start`):
 * malformed percent-encoding, traversal, odd methods, non-UTF-8 bodies, lying Content-Length.
 * Never a 5xx, never a stack, and the server keeps serving.
 */
let server: Server;
let port: number;
let world: World;
const statuses: string[] = [];

beforeAll(async () => {
  world = await createWorld();
  server = createServer(createApiListener({ routes, pages: {} }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  for (const s of statuses) console.log(`[hardening] http: ${s}`);
  await new Promise((r) => server.close(r));
});

/** Sends raw bytes and resolves with the status line's code and the body (or null if the server closed without answering). */
function raw(request: string | Buffer): Promise<{ status: number | null; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error('no answer in 10 s'));
    });
    socket.on('data', (c) => (data += c.toString('latin1')));
    socket.on('error', () => resolve({ status: null, text: data }));
    socket.on('end', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(data)?.[1];
      resolve({ status: status ? Number(status) : null, text: data.split('\r\n\r\n').slice(1).join('\r\n\r\n') });
    });
    socket.write(request);
  });
}

const get = (path: string, headers: Record<string, string> = {}) =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
const withBody = (method: string, path: string, body: Buffer | string, headers: Record<string, string> = {}) => {
  const b = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return Buffer.concat([
    Buffer.from(
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: ${b.length}\r\n${Object.entries(
        headers,
      )
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}\r\n`,
    ),
    b,
  ]);
};

describe('raw HTTP oddities at the local server', () => {
  const token = () => world.a.owner;
  const cases: [string, () => string | Buffer][] = [
    [
      'malformed percent-encoding in a path id',
      () => get('/api/suppliers/%E0%A4%A', { authorization: `Bearer ${token()}` }),
    ],
    ['a lone % in a path id', () => get('/api/suppliers/%', { authorization: `Bearer ${token()}` })],
    ['percent-encoded NUL in a path id', () => get('/api/suppliers/%00', { authorization: `Bearer ${token()}` })],
    ['encoded slash in a path id', () => get('/api/suppliers/a%2Fb', { authorization: `Bearer ${token()}` })],
    ['dot segments', () => get('/api/../api/health')],
    ['encoded dot segments', () => get('/api/%2e%2e/api/health')],
    ['double slashes', () => get('//api//health')],
    ['trailing slash', () => get('/api/health/')],
    [
      'a 10 000-character path',
      () => get(`/api/suppliers/${'a'.repeat(10_000)}`, { authorization: `Bearer ${token()}` }),
    ],
    [
      'malformed percent-encoding in the query',
      () => get('/api/suppliers?search=%E0%A4%A&page=%', { authorization: `Bearer ${token()}` }),
    ],
    [
      'a query of 5 000 repeated keys',
      () =>
        get(`/api/suppliers?${Array.from({ length: 5000 }, () => 'page=1').join('&')}`, {
          authorization: `Bearer ${token()}`,
        }),
    ],
    ['lower-case method', () => 'get /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
    ['HEAD', () => 'HEAD /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
    ['OPTIONS', () => 'OPTIONS /api/suppliers HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
    ['TRACE', () => 'TRACE /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
    ['an unknown method', () => 'BREW /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
    [
      'non-UTF-8 bytes as a JSON body',
      () =>
        withBody('POST', '/api/suppliers', Buffer.from([0x7b, 0x22, 0x6e, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), {
          authorization: `Bearer ${token()}`,
          'content-type': 'application/json',
        }),
    ],
    [
      'UTF-16 JSON body',
      () =>
        withBody(
          'POST',
          '/api/suppliers',
          Buffer.from(JSON.stringify({ name: 'x', tenantId: world.a.id }), 'utf16le'),
          { authorization: `Bearer ${token()}`, 'content-type': 'application/json; charset=utf-16' },
        ),
    ],
    [
      'a binary body on a JSON route',
      () =>
        withBody('POST', '/api/suppliers', Buffer.from([0, 1, 2, 3, 255]), {
          authorization: `Bearer ${token()}`,
          'content-type': 'application/octet-stream',
        }),
    ],
    [
      'chunked garbage',
      () =>
        `POST /api/suppliers HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${token()}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n0\r\n\r\n`,
    ],
    [
      'duplicate Content-Type headers',
      () =>
        withBody('POST', '/api/suppliers', JSON.stringify({ name: 'Dup', tenantId: world.a.id }), {
          authorization: `Bearer ${token()}`,
          'content-type': 'text/plain',
          'Content-Type': 'application/json',
        }),
    ],
    [
      'two Authorization headers',
      () => get('/api/suppliers', { authorization: `Bearer ${token()}`, Authorization: 'Bearer x.y.z' }),
    ],
    ['an 8 KB Authorization header', () => get('/api/suppliers', { authorization: `Bearer ${'a'.repeat(8000)}.b.c` })],
  ];

  it.each(cases)('%s: no 5xx, no stack', async (_name, build) => {
    const res = await raw(build());
    statuses.push(`${_name}: ${res.status ?? 'closed by the HTTP parser'}`);
    // A null status means Node's HTTP parser refused the bytes itself (400 and close): fine.
    if (res.status !== null) {
      expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
      expect(leakIn(res.text), res.text.slice(0, 300)).toBeUndefined();
    }
  });

  it('still serves afterwards', async () => {
    const res = await raw(get('/api/health'));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ success: true, result: { status: 'ok' } });
  });
});
