import http from 'node:http';
import https from 'node:https';

/** What a receiver gets to answer: a slow one counts as failed and is retried. */
const TIMEOUT_MS = 10_000;
/** A receiver's answer is read only this far (its status is what counts). */
const MAX_ANSWER_BYTES = 64 * 1024;

export type SendOutcome = { statusCode: number } | { error: string };

/** One POST to the address checked before it (the lookup is pinned to it); no redirect is followed. */
export function postPinned(
  target: { url: URL; address: string; family: 4 | 6 },
  headers: Record<string, string>,
  body: string,
): Promise<SendOutcome> {
  const mod = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = mod.request(
      target.url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        lookup: (_host, opts, cb) => {
          const pinned = { address: target.address, family: target.family };
          if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: unknown[]) => void)(null, [pinned]);
          else cb(null, pinned.address, pinned.family);
        },
        servername: target.url.hostname,
        timeout: TIMEOUT_MS,
      },
      (res) => {
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_ANSWER_BYTES) res.destroy();
        });
        const done = () => resolve({ statusCode: res.statusCode ?? 0 });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => req.destroy(new Error('The receiver did not answer in time')), TIMEOUT_MS);
    req.on('error', (err) => resolve({ error: err.message || 'The request failed' }));
    req.on('timeout', () => req.destroy(new Error('The receiver did not answer in time')));
    req.on('close', () => clearTimeout(timer));
    req.end(body);
  });
}
