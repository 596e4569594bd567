import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveTarget } from '#areas/outbound-webhooks/target.ts';
import { startGuardProxy } from '#areas/tools/browser/guard-proxy.ts';
import { httpRequest } from '#areas/tools/built-in/http-request.ts';
import type { ToolItem } from '#areas/tools/records.ts';

/**
 * Under the local run's loopback switch a tool may call a server on this machine, but never the
 * local server's own `/_local/...` pages (the outbox of every tenant's mail, the stand-ins): this
 * stand-in answers them, and counts whatever reaches it.
 */
let server: http.Server;
let origin: string;
const reached: string[] = [];

beforeAll(async () => {
  vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');
  server = http.createServer((req, res) => {
    reached.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end('[{"subject":"another tenant\'s mail"}]');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  vi.unstubAllEnvs();
  server.close();
});

const LOCAL_PATHS = [
  '/_local/outbox',
  '/_LOCAL/outbox',
  '/%5Flocal/outbox',
  '/x/../_local/outbox',
  '/_local',
  '/_local?x=1',
];
const tool = {
  displayName: 'Fetch',
  baseToolCode: 'http_request',
  configParams: { timeoutSeconds: 5, allowedHosts: ['127.0.0.1'] },
} as unknown as ToolItem;

describe("the local server's /_local paths under the loopback switch", () => {
  it('the HTTP Request tool refuses them and still reaches other loopback paths', async () => {
    for (const path of LOCAL_PATHS) {
      const r = await httpRequest.execute(
        tool,
        { url: `${origin}${path}` },
        { tenantId: 't', agentId: 'a', requestId: 'r' },
      );
      expect(r, path).toEqual({ ok: false, error: expect.stringMatching(/_local/) });
    }
    expect(reached).toEqual([]);
    const ok = await httpRequest.execute(
      tool,
      { url: `${origin}/api/x` },
      { tenantId: 't', agentId: 'a', requestId: 'r' },
    );
    expect(ok).toMatchObject({ ok: true });
    expect(reached.splice(0)).toEqual(['/api/x']);
  });

  it("the Browser Action's proxy refuses them", async () => {
    const proxy = await startGuardProxy({ allowedHosts: ['127.0.0.1'], maxBytes: 1_000_000 });
    const { port } = new URL(proxy.server);
    try {
      for (const path of LOCAL_PATHS) {
        const answered = await new Promise<boolean>((resolve) => {
          const req = http.request({ host: '127.0.0.1', port, path: `${origin}${path}`, method: 'GET' }, (res) => {
            res.resume();
            resolve(true);
          });
          req.on('error', () => resolve(false));
          req.end();
        });
        expect(answered, path).toBe(false);
      }
      expect(reached).toEqual([]);
      expect(proxy.refused.map((r) => r.reason)).toEqual(LOCAL_PATHS.map(() => expect.stringMatching(/_local/)));
    } finally {
      await proxy.close();
    }
  });

  it('a webhook delivery refuses them', async () => {
    await expect(resolveTarget(`${origin}/_local/outbox`)).rejects.toThrow(/_local/);
  });
});
