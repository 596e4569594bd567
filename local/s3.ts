import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { config } from '#shared/platform/config.ts';
import { checkPresigned } from './s3-signature.ts';

/** The parts of s3rver (untyped CommonJS) used here. */
interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
  httpServer?: Server;
}
type S3rverClass = new (opts: Record<string, unknown>) => S3rverInstance;

export interface RunningS3 {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * The local S3: s3rver on a free port, objects kept as files under LOCAL_DATA_DIR/s3, behind a
 * front that checks what s3rver does not: a presigned URL's V4 signature and expiry, and that a
 * request is signed at all (the buckets are private). The media and invoice buckets are created
 * when missing. The SDK's AWS_ENDPOINT_URL_S3 points every S3 client made after this at the front
 * (an address by IP is addressed path-style, as s3rver needs).
 */
export async function startS3(dataDir: string, host = '127.0.0.1'): Promise<RunningS3> {
  const require = createRequire(import.meta.url);
  const S3rver = require('s3rver') as S3rverClass;
  // s3rver only knows the key pair S3RVER/S3RVER; teach it this process's dummy credentials so
  // the SDK's signed requests verify as they would against S3.
  const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account') as {
    DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void };
  };
  const keyId = process.env.AWS_ACCESS_KEY_ID || 'local';
  const secret = process.env.AWS_SECRET_ACCESS_KEY || 'local';
  DUMMY_ACCOUNT.createKeyPair(keyId, secret);
  const server = new S3rver({
    address: host,
    port: 0,
    silent: true,
    directory: join(dataDir, 's3'),
    configureBuckets: [{ name: config.mediaBucket }, { name: config.invoiceBucket }],
  });
  const inner = await server.run();
  const front = http.createServer((req, res) => {
    const refusal = refusalOf(req, (id) => (id === keyId ? secret : id === 'S3RVER' ? 'S3RVER' : undefined));
    if (refusal) {
      req.resume();
      const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refusal.code}</Code><Message>${refusal.message}</Message></Error>`;
      return void res.writeHead(403, { 'content-type': 'application/xml' }).end(body);
    }
    const upstream = http.request(
      { host, port: inner.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => front.listen(0, host, resolve));
  const endpoint = `http://${host}:${(front.address() as AddressInfo).port}`;
  process.env.AWS_ENDPOINT_URL_S3 = endpoint;
  return {
    endpoint,
    stop: async () => {
      // The SDK keeps connections alive; without this, close() waits for them to time out.
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      server.httpServer?.closeAllConnections();
      await server.close();
    },
  };
}

/** A presigned URL must hold; any other request must carry a signature s3rver then checks (a preflight carries none). */
function refusalOf(req: http.IncomingMessage, secretOf: (id: string) => string | undefined) {
  const url = req.url ?? '/';
  const query = url.includes('?') ? new URLSearchParams(url.slice(url.indexOf('?') + 1)) : new URLSearchParams();
  if (query.has('X-Amz-Algorithm'))
    return checkPresigned({ method: req.method ?? 'GET', url, headers: req.headers }, secretOf);
  if (req.method === 'OPTIONS' || req.headers.authorization || query.has('Signature')) return null;
  return { code: 'AccessDenied', message: 'Access Denied' } as const;
}
