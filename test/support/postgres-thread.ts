import { Worker } from 'node:worker_threads';

/**
 * A real PostgreSQL (PGlite) listening on a local socket from a worker thread. PGlite runs queries
 * synchronously inside its WebAssembly, so in the test's own thread a slow statement (pg_sleep)
 * would stop every timer, the client's timeout among them; in a thread of its own it is slow the
 * way a server is. `setup` SQL runs before it listens.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create();
  if (workerData.setup) await db.exec(workerData.setup);
  const server = new PGLiteSocketServer({ db, port: workerData.port, host: '127.0.0.1' });
  await server.start();
  parentPort.postMessage(server.getServerConn());
  parentPort.on('message', async () => {
    await server.stop();
    await db.close();
    parentPort.postMessage('stopped');
  });
})().catch((err) => parentPort.postMessage({ error: String(err && err.stack || err) }));
`;

export async function startPostgresThread(port: number, setup = '') {
  const worker = new Worker(THREAD, { eval: true, workerData: { port, setup } });
  const first = await new Promise<unknown>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  if (typeof first !== 'string') throw new Error(`PGlite thread: ${JSON.stringify(first)}`);
  return {
    /** host:port */
    address: first,
    url: `postgres://postgres@${first}/postgres`,
    async stop() {
      const stopped = new Promise((r) => worker.once('message', r));
      worker.postMessage('stop');
      await Promise.race([stopped, new Promise((r) => setTimeout(r, 10_000))]);
      await worker.terminate();
    },
  };
}
