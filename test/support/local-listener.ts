import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiListener, type HttpHandler } from '#local/server.ts';
import { routes } from '#local/routes.ts';

/**
 * The local server's listener on an ephemeral port over the real route table, each group's handler
 * replaced by `handle` (which records what reached it).
 */
export async function localListener(handle: HttpHandler, maxBodyBytes = 1024) {
  const calls: string[] = [];
  const listener = createApiListener({
    routes,
    maxBodyBytes,
    loadHandler: async (group) => async (event, context) => {
      calls.push(`${group} ${event.routeKey}`);
      return handle(event, context);
    },
  });
  const server: Server = createServer(listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, calls, close: () => new Promise<void>((r) => server.close(() => r())) };
}
