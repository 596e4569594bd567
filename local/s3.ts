import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { config } from '#shared/platform/config.ts';

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
 * The local S3: s3rver on a free port, objects kept as files under LOCAL_DATA_DIR/s3. The media
 * and invoice buckets are created when missing. The SDK's AWS_ENDPOINT_URL_S3 points every S3 client
 * made after this at it (an address by IP is addressed path-style, as s3rver needs).
 */
export async function startS3(dataDir: string, host = '127.0.0.1'): Promise<RunningS3> {
  const require = createRequire(import.meta.url);
  const S3rver = require('s3rver') as S3rverClass;
  // s3rver only knows the key pair S3RVER/S3RVER; teach it this process's dummy credentials so
  // the SDK's signed requests (and presigned URLs) verify as they would against S3.
  const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account') as {
    DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void };
  };
  DUMMY_ACCOUNT.createKeyPair(process.env.AWS_ACCESS_KEY_ID || 'local', process.env.AWS_SECRET_ACCESS_KEY || 'local');
  const server = new S3rver({
    address: host,
    port: 0,
    silent: true,
    directory: join(dataDir, 's3'),
    configureBuckets: [{ name: config.mediaBucket }, { name: config.invoiceBucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://${host}:${port}`;
  process.env.AWS_ENDPOINT_URL_S3 = endpoint;
  return {
    endpoint,
    stop: async () => {
      // The SDK keeps connections alive; without this, close() waits for them to time out.
      server.httpServer?.closeAllConnections();
      await server.close();
    },
  };
}
