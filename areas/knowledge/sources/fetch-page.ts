import { gunzipSync } from 'node:zlib';
import { outboundUrl, pinTarget, requestPinned, TargetRefused } from '#shared/http/pinned-request.ts';
import { MAX_REDIRECTS, PAGE_TIMEOUT_MS, USER_AGENT } from './source-vocabulary.ts';

/**
 * One GET of a source's page, sitemap or robots.txt, the way the HTTP Request tool calls out: the
 * URL's form checked, every address of its host public, the connection pinned to the address
 * checked, and each redirect checked again as the first hop was (shared/http/pinned-request.ts).
 * The crawl's rules ride along: a user agent naming the platform, a pace per host, robots.txt
 * asked at every hop, a size and a time limit, conditional GET with what the page answered last.
 */
export interface FetchRules {
  maxBytes: number;
  accept: string;
  /** Waits for the host's turn (the per-host pace) before each request. */
  pace: (host: string) => Promise<void>;
  /** Why this URL may not be read (robots.txt, another host), or null. */
  refuse?: (url: URL) => Promise<string | null>;
  etag?: string | null;
  lastModified?: string | null;
}

export type Fetched =
  | { kind: 'page'; url: URL; contentType: string; bytes: Buffer; etag: string | null; lastModified: string | null }
  | { kind: 'unchanged'; url: URL }
  | { kind: 'gone'; url: URL; status: number }
  | { kind: 'failed'; url: URL | null; reason: string };

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? null;
export const isGzip = (b: Buffer) => b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;

/** A gzip body unpacked with the same limit as a plain one, so a small bomb cannot grow past it. */
export function gunzipBounded(bytes: Buffer, maxBytes: number): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new Error(`It unpacks to more than ${maxBytes} bytes`);
    throw new Error('It is not a readable gzip file');
  }
}

export async function fetchPage(raw: string, rules: FetchRules): Promise<Fetched> {
  let next = raw;
  let first = true;
  for (let hop = 0; ; hop++) {
    let url: URL;
    try {
      url = outboundUrl(next);
    } catch (err) {
      return { kind: 'failed', url: null, reason: (err as Error).message };
    }
    url.hash = '';
    let target: Awaited<ReturnType<typeof pinTarget>>;
    try {
      target = await pinTarget(url);
    } catch (err) {
      const reason = err instanceof TargetRefused ? err.message : 'The address could not be checked';
      return { kind: 'failed', url, reason: first ? reason : `A redirect was refused: ${reason}` };
    }
    // robots.txt is asked only of a host the guard let through.
    const refusal = await rules.refuse?.(url);
    if (refusal) return { kind: 'failed', url, reason: refusal };
    await rules.pace(url.host);
    let res: Awaited<ReturnType<typeof requestPinned>>;
    try {
      res = await requestPinned(target, {
        method: 'GET',
        headers: {
          'user-agent': USER_AGENT,
          accept: rules.accept,
          'accept-encoding': 'gzip',
          // The validators belong to the URL asked first; a redirect's target is asked whole.
          ...(first && rules.etag ? { 'if-none-match': rules.etag } : {}),
          ...(first && rules.lastModified ? { 'if-modified-since': rules.lastModified } : {}),
        },
        deadline: Date.now() + PAGE_TIMEOUT_MS,
        maxBytes: rules.maxBytes,
        overLimit: 'fail',
      });
    } catch (err) {
      return { kind: 'failed', url, reason: (err as Error).message };
    }
    first = false;
    if (res.status >= 300 && res.status < 400 && res.status !== 304) {
      if (!res.location) return { kind: 'failed', url, reason: `HTTP ${res.status} without a Location` };
      if (hop >= MAX_REDIRECTS) return { kind: 'failed', url, reason: `More than ${MAX_REDIRECTS} redirects` };
      next = new URL(res.location, url).toString();
      continue;
    }
    if (res.status === 304) return { kind: 'unchanged', url };
    if (res.status === 404 || res.status === 410) return { kind: 'gone', url, status: res.status };
    if (res.status < 200 || res.status >= 300) return { kind: 'failed', url, reason: `HTTP ${res.status}` };
    let bytes = res.bytes;
    if (header(res.headers['content-encoding'])?.toLowerCase() === 'gzip') {
      try {
        bytes = gunzipBounded(bytes, rules.maxBytes);
      } catch (err) {
        return { kind: 'failed', url, reason: (err as Error).message };
      }
    }
    return {
      kind: 'page',
      url,
      contentType: (res.contentType ?? '').split(';')[0]!.trim().toLowerCase(),
      bytes,
      etag: header(res.headers.etag),
      lastModified: header(res.headers['last-modified']),
    };
  }
}
