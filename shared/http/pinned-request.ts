import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { loopbackTargetsAllowed } from '#shared/platform/config.ts';
import { isLocalServerPath, LOCAL_PATH_REFUSED } from './local-paths.ts';

/**
 * Every outbound request the platform makes for a tenant (the HTTP Request tool, outbound webhooks):
 * an https URL without credentials (plain http only to loopback under the local run's switch), a
 * host whose every address is public (address-guard.ts, loaded on first use: ipaddr.js costs a cold
 * start that most calls never need), and a connection pinned to the address that was checked, so a
 * DNS answer cannot change between the check and the request. Redirects are the caller's: each hop
 * is checked as the first was.
 */
export interface PinnedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** A refused target: the message says why, in words a tenant can act on. */
export class TargetRefused extends Error {
  override name = 'TargetRefused';
}

/** The URL's form; throws TargetRefused. */
export function outboundUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('The url is not valid');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopbackTargetsAllowed()))
    throw new TargetRefused('Only https URLs are allowed');
  if (url.username || url.password) throw new TargetRefused('Credentials in the url are not allowed');
  return url;
}

const guard = () => import('./address-guard.ts');

/** The address the request will connect to: every one the host resolves to is allowed (a private one refuses it). */
export async function pinTarget(url: URL): Promise<PinnedTarget> {
  const g = await guard();
  const pinned = await g.publicAddressOf(url.hostname).catch((err: Error) => {
    throw new TargetRefused(err.message);
  });
  if (url.protocol === 'http:' && !g.isLoopbackAddress(pinned.address))
    throw new TargetRefused('Only https URLs are allowed');
  if (g.isLoopbackAddress(pinned.address) && isLocalServerPath(url.pathname))
    throw new TargetRefused(LOCAL_PATH_REFUSED);
  return { url, ...pinned };
}

export interface PinnedAnswer {
  status: number;
  location: string | null;
  contentType: string | null;
  body: string;
  /** The answer's bytes as read (a binary page, a gzip sitemap) and its headers (a crawl's ETag, Last-Modified). */
  bytes: Buffer;
  headers: IncomingHttpHeaders;
}

export interface PinnedRequest {
  method: string;
  headers?: Record<string, string>;
  body?: string | null;
  /** When the answer must have arrived (epoch ms). */
  deadline: number;
  /** How much of the answer is read: past it the request fails (`fail`), or the rest is dropped (`cut`). */
  maxBytes: number;
  overLimit: 'fail' | 'cut';
}

/** One request to the pinned address; rejects on a network error, the deadline, or an answer over its limit. */
export function requestPinned(target: PinnedTarget, r: PinnedRequest): Promise<PinnedAnswer> {
  const mod = target.url.protocol === 'https:' ? https : http;
  return new Promise<PinnedAnswer>((resolve, reject) => {
    const remaining = r.deadline - Date.now();
    if (remaining <= 0) return reject(new Error('The request timed out'));
    const pinned = { address: target.address, family: target.family };
    const req = mod.request(
      target.url,
      {
        method: r.method,
        headers: {
          ...r.headers,
          ...(r.body != null ? { 'content-length': String(Buffer.byteLength(r.body)) } : {}),
        },
        lookup: (_host, opts, cb) => {
          if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: unknown[]) => void)(null, [pinned]);
          else cb(null, pinned.address, pinned.family);
        },
        servername: target.url.hostname,
      },
      (res) => {
        let size = 0;
        const parts: Buffer[] = [];
        const answer = () => {
          const bytes = Buffer.concat(parts);
          return {
            status: res.statusCode ?? 0,
            location: (res.headers.location as string | undefined) ?? null,
            contentType: (res.headers['content-type'] as string | undefined) ?? null,
            body: bytes.toString('utf8'),
            bytes,
            headers: res.headers,
          };
        };
        res.on('data', (c: Buffer) => {
          if (size + c.length > r.maxBytes) {
            if (r.overLimit === 'fail') {
              // Rejected first (an answer already read in full still emits 'end'), and the answer dropped
              // without an error: a socket already back in the agent's pool has no listener for one.
              reject(new Error(`The response is larger than ${r.maxBytes} bytes`));
              res.destroy();
              return;
            }
            parts.push(c.subarray(0, Math.max(0, r.maxBytes - size)));
            size = r.maxBytes;
            resolve(answer());
            res.destroy();
            return;
          }
          size += c.length;
          parts.push(c);
        });
        res.on('end', () => resolve(answer()));
        // A receiver that hangs up mid-answer still gave its status, which is all a cut answer needs.
        if (r.overLimit === 'cut') res.on('close', () => resolve(answer()));
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => req.destroy(new Error('The request timed out')), remaining);
    req.on('error', reject);
    req.on('close', () => clearTimeout(timer));
    req.end(r.body ?? undefined);
  });
}
