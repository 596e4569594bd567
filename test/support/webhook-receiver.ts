import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A loopback receiver of outbound webhooks, as an integrator runs one: it records each request and
 * answers the next of `answers` (then 200).
 */
export async function webhookReceiver() {
  const received: Received[] = [];
  const answers: number[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(parts).toString('utf8') });
      res.statusCode = answers.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    /** Statuses for the next requests, in order. */
    answer: (...statuses: number[]) => answers.push(...statuses),
    /** What arrived on one path, with the body parsed. */
    on: (path: string) =>
      received
        .filter((r) => r.path === path)
        .map((r) => ({
          ...r,
          // biome-ignore lint/suspicious/noExplicitAny: tests read any event's data by path, as the receiver would
          json: JSON.parse(r.body) as { type: string; timestamp: string; data: any },
        })),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The three Standard Webhooks headers of a received request, as `Webhook.verify` takes them. */
export const signatureHeaders = (h: IncomingHttpHeaders) => ({
  'webhook-id': String(h['webhook-id']),
  'webhook-timestamp': String(h['webhook-timestamp']),
  'webhook-signature': String(h['webhook-signature']),
});
