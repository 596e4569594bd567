import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { isLocalServerPath, LOCAL_PATH_REFUSED } from '#shared/http/local-paths.ts';
import { checkHost, pinnedAddress, Refused } from './page-guard.ts';

/**
 * The browser's only way out: Chromium is started with this proxy and no bypass, so every
 * connection it opens (pages, sub-resources, redirects the request interception never sees,
 * WebSockets, form posts) is checked here against the allowed hosts and connected to the address
 * that was checked, never re-resolved by Chromium (no DNS rebinding between check and connect).
 */
export interface GuardProxy {
  server: string;
  refused: { target: string; reason: string }[];
  /** Bytes received from the outside world so far. */
  bytes(): number;
  close(): Promise<void>;
}

export async function startGuardProxy(opts: {
  allowedHosts: readonly string[];
  maxBytes: number;
}): Promise<GuardProxy> {
  const refused: GuardProxy['refused'] = [];
  let received = 0;
  const sockets = new Set<net.Socket>();
  const count = (chunk: Buffer, stop: () => void) => {
    received += chunk.length;
    if (received > opts.maxBytes) {
      refused.push({ target: 'download budget', reason: `More than ${opts.maxBytes} bytes were downloaded` });
      stop();
    }
  };
  const refuse = (target: string, err: unknown) => {
    const reason = err instanceof Refused ? err.message : 'The connection failed';
    if (err instanceof Refused) refused.push({ target, reason });
    return reason;
  };

  const server = http.createServer(async (req, res) => {
    // Plain http reaches the proxy as an absolute-form request; only a loopback server of the local run may answer it.
    const raw = req.url ?? '';
    try {
      const url = new URL(raw);
      if (url.protocol !== 'http:') throw new Refused('Only https URLs are allowed');
      checkHost(url.hostname, opts.allowedHosts);
      const pinned = await pinnedAddress(url.hostname, 'http:');
      if (isLocalServerPath(url.pathname)) throw new Refused(LOCAL_PATH_REFUSED);
      const upstream = http.request(
        {
          host: pinned.address,
          family: pinned.family,
          port: url.port || 80,
          path: `${url.pathname}${url.search}`,
          method: req.method,
          headers: { ...req.headers, host: url.host },
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.on('data', (c: Buffer) => count(c, () => up.destroy()));
          up.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    } catch (err) {
      refuse(raw.slice(0, 200), err);
      // No answer at all: a proxy's 403 page would show as the site's own content.
      res.socket?.destroy();
    }
  });

  server.on('connect', async (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const target = req.url ?? '';
    const at = target.lastIndexOf(':');
    const host = at > 0 ? target.slice(0, at) : target;
    const port = Number(target.slice(at + 1)) || 443;
    try {
      checkHost(host, opts.allowedHosts);
      const pinned = await pinnedAddress(host, 'https:');
      const upstream = net.connect({ host: pinned.address, port, family: pinned.family });
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('connect', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.on('data', (c: Buffer) => count(c, () => upstream.destroy()));
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
    } catch (err) {
      client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\n${refuse(target.slice(0, 200), err)}`);
    }
  });
  server.on('clientError', (_err, socket) => socket.destroy());

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server: `http://127.0.0.1:${port}`,
    refused,
    bytes: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
