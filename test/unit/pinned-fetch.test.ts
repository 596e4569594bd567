import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pinnedFetch } from '#shared/http/pinned-fetch.ts';

/**
 * The fetch an MCP client is given: every request and every redirect it follows goes through the
 * address guard, answers are bounded, and no standing GET stream is opened. The redirect's private
 * target is 0.0.0.0 on a closed port: if the guard failed, nothing would listen there.
 */
vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');

let server: Server;
let base: string;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${body}`);
      if (req.url === '/to-private') return res.writeHead(307, { location: 'http://0.0.0.0:1/mcp' }).end();
      if (req.url === '/to-here') return res.writeHead(307, { location: '/echo' }).end();
      if (req.url === '/see-other') return res.writeHead(303, { location: '/echo' }).end();
      if (req.url === '/big') return res.writeHead(200).end('x'.repeat(5000));
      res
        .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' })
        .end(`{"got":${JSON.stringify(body)}}`);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://localhost:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const f = (maxBytes = 100_000) => pinnedFetch({ deadline: Date.now() + 5000, maxBytes });

describe('pinnedFetch', () => {
  it('sends the body and gives back status, headers and body', async () => {
    const res = await f()(`${base}/echo`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBe('s-1');
    expect(await res.json()).toEqual({ got: '{"a":1}' });
  });

  it('follows a 307 on the same server with the body, checking the new target', async () => {
    const res = await f()(`${base}/to-here`, { method: 'POST', body: 'hello' });
    expect(await res.json()).toEqual({ got: 'hello' });
    expect(seen.at(-1)).toBe('POST /echo hello');
  });

  it('refuses a redirect to a private address before connecting', async () => {
    await expect(f()(`${base}/to-private`, { method: 'POST', body: '{}' })).rejects.toThrow(/non-public address/);
  });

  it("hands a redirect back as it came when the caller follows redirects itself ('manual')", async () => {
    const res = await f()(`${base}/to-private`, { method: 'POST', body: '{}', redirect: 'manual' });
    expect(res.status).toBe(307);
    expect(res.headers.get('location')).toBe('http://0.0.0.0:1/mcp');
  });

  it('refuses a redirect that would drop the body (303)', async () => {
    await expect(f()(`${base}/see-other`, { method: 'POST', body: '{}' })).rejects.toThrow(
      /redirected the request with 303/,
    );
  });

  it('fails an answer over its size bound', async () => {
    await expect(f(1000)(`${base}/big`, { method: 'POST', body: '' })).rejects.toThrow(/larger than 1000 bytes/);
  });

  it('answers a GET 405 without any request: no standing event stream is opened', async () => {
    const before = seen.length;
    const res = await f()(`${base}/echo`, { method: 'GET' });
    expect(res.status).toBe(405);
    expect(seen.length).toBe(before);
  });

  it('refuses a private or plain-http remote address at the first request', async () => {
    await expect(f()('http://0.0.0.0:1/mcp', { method: 'POST', body: '{}' })).rejects.toThrow(/non-public address/);
    await expect(f()('ftp://example.com/mcp', { method: 'POST', body: '{}' })).rejects.toThrow(/Only https/);
  });
});
