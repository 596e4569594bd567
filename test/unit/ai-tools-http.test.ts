import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isPublicAddress } from '#shared/http/address-guard.ts';
import { httpRequest as httpRequestType, MAX_RESPONSE_BYTES } from '#areas/tools/built-in/http-request.ts';

const httpRequest = (tool: Parameters<typeof httpRequestType.execute>[0], args: { url: string; method?: string }) =>
  httpRequestType.execute(tool, args, { tenantId: 't', agentId: 'a', requestId: 'r' });
import type { ToolItem } from '#areas/tools/records.ts';

let server: http.Server;
let host: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/ok') return res.end('{"hello":"world"}');
    if (req.url === '/hop') return res.writeHead(302, { location: '/ok' }).end();
    if (req.url === '/to-private') return res.writeHead(302, { location: 'https://10.0.0.7/x' }).end();
    if (req.url === '/to-metadata')
      return res.writeHead(302, { location: 'https://169.254.169.254/latest/meta-data' }).end();
    if (req.url === '/to-mapped') return res.writeHead(307, { location: 'https://[::ffff:127.0.0.1]/admin' }).end();
    if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
    if (req.url === '/big') return res.end(Buffer.alloc(MAX_RESPONSE_BYTES + 10, 97));
    if (req.url === '/slow') return setTimeout(() => res.end('late'), 3000);
    res.writeHead(404).end('missing');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
});

/** The local run's switch (and a deployed function's marker) for the length of one test. */
const SWITCH = { LOCAL_ALLOW_LOOPBACK_TARGETS: '1' };
beforeEach(() => {
  Object.assign(process.env, SWITCH);
});
afterEach(() => {
  delete process.env.LOCAL_ALLOW_LOOPBACK_TARGETS;
  delete process.env.AWS_LAMBDA_FUNCTION_NAME;
});
const guardedAsDeployed = () => {
  delete process.env.LOCAL_ALLOW_LOOPBACK_TARGETS;
};

const tool = (allowedHosts: string[], timeoutSeconds = 5) =>
  ({
    displayName: 'Fetch',
    baseToolCode: 'http_request',
    configParams: { maxRows: 100, readOnly: true, timeoutSeconds, allowedHosts },
  }) as unknown as ToolItem;

const call = (url: string, allowed = ['127.0.0.1'], timeoutSeconds = 5) =>
  httpRequest(tool(allowed, timeoutSeconds), { url });

describe('HTTP Request tool', () => {
  it('fetches from a loopback server under the local switch and follows a redirect', async () => {
    expect(await call(`http://${host}/ok`)).toEqual({ ok: true, result: { status: 200, body: '{"hello":"world"}' } });
    expect(await call(`http://${host}/hop`)).toMatchObject({ ok: true, result: { status: 200 } });
  });

  it('without the switch guards exactly as a deployed stage: no plain http, no loopback', async () => {
    guardedAsDeployed();
    expect(await call(`http://${host}/ok`)).toEqual({ ok: false, error: 'Only https URLs are allowed' });
    expect(await call(`https://${host}/ok`)).toEqual({
      ok: false,
      error: expect.stringMatching(/non-public address \(127\.0\.0\.1\)/),
    });
  });

  it('ignores the switch in a deployed function', async () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'saas-prod-agents';
    expect(await call(`http://${host}/ok`)).toEqual({ ok: false, error: 'Only https URLs are allowed' });
    expect(await call(`https://${host}/ok`)).toEqual({
      ok: false,
      error: expect.stringMatching(/non-public address/),
    });
  });

  it('under the switch still refuses private ranges, the metadata address and plain http elsewhere', async () => {
    for (const [url, h] of [
      ['https://10.1.2.3/', '10.1.2.3'],
      ['https://169.254.169.254/latest/meta-data', '169.254.169.254'],
      ['https://[fd00:ec2::254]/', 'fd00:ec2::254'],
      ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ] as const) {
      expect(await call(url, [h]), url).toEqual({ ok: false, error: expect.stringMatching(/non-public address/) });
    }
    expect(await call('http://10.1.2.3/', ['10.1.2.3'])).toEqual({
      ok: false,
      error: expect.stringMatching(/non-public address/),
    });
  });

  it('refuses a host the tool does not allow', async () => {
    expect(await call(`http://${host}/ok`, ['api.example.com'])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not allowed/),
    });
    expect(await call('https://evil.example/x', ['api.example.com'])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not allowed/),
    });
  });

  it('refuses loopback, private, link-local, metadata, unique-local and IPv4-mapped addresses', async () => {
    guardedAsDeployed();
    for (const [url, h] of [
      ['https://127.0.0.1/', '127.0.0.1'],
      ['https://10.1.2.3/', '10.1.2.3'],
      ['https://192.168.1.1/', '192.168.1.1'],
      ['https://169.254.169.254/latest/meta-data', '169.254.169.254'],
      ['https://[fd00:ec2::254]/', 'fd00:ec2::254'],
      ['https://[::1]/', '::1'],
      ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
      ['https://localhost/', 'localhost'],
    ] as const) {
      const r = await call(url, [h]);
      expect(r, url).toMatchObject({ ok: false, error: expect.stringMatching(/non-public address/) });
    }
  });

  it('re-checks every redirect: to a private address or the metadata service is refused as non-public', async () => {
    for (const [path, allowed] of [
      ['/to-private', '10.0.0.7'],
      ['/to-metadata', '169.254.169.254'],
      ['/to-mapped', '::ffff:7f00:1'],
    ] as const) {
      const r = await call(`http://${host}${path}`, ['127.0.0.1', allowed]);
      expect(r, path).toEqual({ ok: false, error: expect.stringMatching(/non-public address/) });
    }
  });

  it('stops after three redirects, at 1 MB, and at timeoutSeconds', async () => {
    expect(await call(`http://${host}/loop`)).toEqual({ ok: false, error: 'More than 3 redirects' });
    expect(await call(`http://${host}/big`)).toMatchObject({ ok: false, error: expect.stringMatching(/larger than/) });
    const started = Date.now();
    expect(await call(`http://${host}/slow`, ['127.0.0.1'], 1)).toEqual({ ok: false, error: 'The request timed out' });
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('classifies addresses', () => {
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    expect(isPublicAddress('2606:4700::1111')).toBe(true);
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.0.1',
      '169.254.169.254',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::a9fe:a9fe',
      '0.0.0.0',
    ])
      expect(isPublicAddress(a), a).toBe(false);
  });
});
