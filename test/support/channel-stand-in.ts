import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { ENDPOINT_SETTINGS } from '#areas/channels/senders/endpoints.ts';
import { useLocalChannelEndpoints, type ChannelCall } from '#local/channels.ts';
import { createApiListener } from '#local/server.ts';
import { routes } from '#local/routes.ts';

/**
 * The local server in-process with the chat platforms' stand-in (`/_local/channels`), and the
 * senders pointed at it for the test file; its record is emptied before each test. Call at the top
 * of a file: its hooks run before the file's own.
 */
export function useChannelStandIn() {
  let server: Server | undefined;
  const state = { base: '' };
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    server = createServer(createApiListener({ routes }));
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
    state.base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    for (const setting of Object.values(ENDPOINT_SETTINGS)) {
      saved[setting] = process.env[setting];
      delete process.env[setting];
    }
    useLocalChannelEndpoints(state.base);
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    await new Promise((done) => server?.close(done));
  });
  beforeEach(async () => {
    await fetch(`${state.base}/_local/channels`, { method: 'DELETE' });
  });
  return {
    /** The in-process server's address. */
    get base() {
      return state.base;
    },
    /** The outbound calls the stand-in recorded, of one platform or all. */
    recorded: async (channel?: string): Promise<ChannelCall[]> =>
      (await fetch(`${state.base}/_local/channels${channel ? `?channel=${channel}` : ''}`)).json() as Promise<
        ChannelCall[]
      >,
  };
}
