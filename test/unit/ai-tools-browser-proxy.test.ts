import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGuardProxy, type GuardProxy } from '#areas/tools/browser/guard-proxy.ts';

/** The guard proxy alone, spoken to as Chromium does: CONNECT for https, absolute-form requests for http. */
vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');
vi.mock('node:dns/promises', async (real) => ({
  ...(await real<typeof import('node:dns/promises')>()),
  lookup: async (host: string) => {
    if (host === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
    if (host === 'intranet.acme.example') return [{ address: '10.0.0.7', family: 4 }];
    if (host === 'split.acme.example')
      return [
        { address: '127.0.0.1', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  },
}));

let target: net.Server;
let port: number;
let proxy: GuardProxy;

beforeAll(async () => {
  target = net.createServer((s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nhi'));
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  port = (target.address() as AddressInfo).port;
  proxy = await startGuardProxy({
    allowedHosts: ['localhost', 'intranet.acme.example', 'split.acme.example'],
    maxBytes: 1024,
  });
});
afterAll(async () => {
  await proxy.close();
  target.close();
});

const connect = (hostPort: string) =>
  new Promise<number>((resolve) => {
    const req = http.request(proxy.server, { method: 'CONNECT', path: hostPort });
    req.on('connect', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(-1));
    req.end();
  });

const plain = (url: string) =>
  new Promise<number>((resolve) => {
    const u = new URL(proxy.server);
    const req = http.request(
      { host: u.hostname, port: u.port, path: url, headers: { host: new URL(url).host } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', () => resolve(-1));
    req.end();
  });

describe('the guard proxy every browser connection goes through', () => {
  it('tunnels to an allowed host at the address it checked', async () => {
    expect(await connect(`localhost:${port}`)).toBe(200);
    expect(await plain(`http://localhost:${port}/`)).toBe(200);
  });

  it('refuses a host outside the list, a private address and a name with any non-public address', async () => {
    const before = proxy.refused.length;
    expect(await connect(`other.example:${port}`)).toBe(403);
    expect(await connect('intranet.acme.example:443')).toBe(403);
    expect(await connect('split.acme.example:443')).toBe(403);
    expect(await plain('http://intranet.acme.example/admin')).toBe(-1);
    expect(proxy.refused.slice(before).map((r) => r.reason)).toEqual([
      'The host other.example is not allowed for this tool',
      expect.stringMatching(/non-public address \(10\.0\.0\.7\)/),
      expect.stringMatching(/non-public address \(169\.254\.169\.254\)/),
      expect.stringMatching(/non-public address \(10\.0\.0\.7\)/),
    ]);
  });

  it('without the local switch, loopback is refused too', async () => {
    vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '0');
    try {
      expect(await connect(`localhost:${port}`)).toBe(403);
      expect(await plain(`http://localhost:${port}/`)).toBe(-1);
    } finally {
      vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');
    }
  });
});
