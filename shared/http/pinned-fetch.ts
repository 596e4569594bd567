import { outboundUrl, pinTarget, requestPinned, TargetRefused } from './pinned-request.ts';

/**
 * A fetch for a client library that speaks a protocol over HTTP (the MCP client's transport): each
 * request, and each redirect it follows, goes through the address guard and a connection pinned to
 * the checked address, as the HTTP Request tool's do. The whole exchange shares one deadline, and
 * each answer is read in full up to `maxBytes` (past it the request fails), so a slow or endless
 * server costs a bounded time and memory. A GET (a long-lived server-sent event stream) is answered
 * 405 without leaving the machine: nothing the platform calls needs a standing stream.
 */
export interface PinnedFetchOptions {
  /** When every answer must have arrived (epoch ms). */
  deadline: number;
  maxBytes: number;
  maxRedirects?: number;
}

const bodyText = (body: RequestInit['body']): string | null => {
  if (body == null) return null;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body).toString('utf8');
  // An OAuth token request's form (its content type is set beside it by the SDK).
  if (body instanceof URLSearchParams) return body.toString();
  throw new TargetRefused('Only a text or byte body can be sent');
};

const headerRecord = (h: RequestInit['headers']): Record<string, string> => {
  const out: Record<string, string> = {};
  new Headers(h).forEach((v, k) => {
    out[k] = v;
  });
  return out;
};

export function pinnedFetch(opts: PinnedFetchOptions): (input: string | URL, init?: RequestInit) => Promise<Response> {
  const maxRedirects = opts.maxRedirects ?? 3;
  return async (input, init = {}) => {
    const method = (init.method ?? 'GET').toUpperCase();
    if (method === 'GET') return new Response(null, { status: 405, statusText: 'Method Not Allowed' });
    const body = bodyText(init.body);
    const headers = headerRecord(init.headers);
    let next = String(input);
    for (let hop = 0; ; hop++) {
      if (init.signal?.aborted) throw init.signal.reason ?? new Error('The request was aborted');
      const target = await pinTarget(outboundUrl(next));
      const answer = await requestPinned(target, {
        method,
        headers,
        body,
        deadline: opts.deadline,
        maxBytes: opts.maxBytes,
        overLimit: 'fail',
      });
      const redirected = answer.status >= 300 && answer.status < 400 && answer.location;
      if (redirected && init.redirect !== 'manual') {
        if (init.redirect === 'error') throw new TargetRefused('The server answered with a redirect');
        if (hop >= maxRedirects) throw new TargetRefused(`More than ${maxRedirects} redirects`);
        next = new URL(answer.location!, target.url).toString();
        // A 301, 302 or 303 would turn the POST into a GET without its body: no message would arrive.
        if (answer.status !== 307 && answer.status !== 308)
          throw new TargetRefused(`The server redirected the request with ${answer.status}`);
        continue;
      }
      const out = new Headers();
      for (const [k, v] of Object.entries(answer.headers ?? {}))
        if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : v);
      const empty = answer.status === 204 || answer.status === 304 || (answer.status >= 100 && answer.status < 200);
      return new Response(empty ? null : answer.body, { status: answer.status, headers: out });
    }
  };
}
