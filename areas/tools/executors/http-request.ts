import http from 'node:http';
import https from 'node:https';
import type { ToolItem } from '#areas/tools/records.ts';
import { loopbackTargetsAllowed } from '#shared/platform/config.ts';
import type { ToolOutcome } from './outcome.ts';

// Loaded by the first call that resolves a host: ipaddr.js took about 0.9 ms of the cold start of
// every function that runs agent turns, most of which never call an HTTP tool.
const addressGuard = () => import('./address-guard.ts');

export const MAX_RESPONSE_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 3;

/** The tools routes store the hosts lowercased (areas/tools/routes.ts); older tools have none. */
const allowedHosts = (tool: ToolItem): string[] => (tool.configParams.allowedHosts ?? []).map((h) => h.toLowerCase());

interface Fetched {
  status: number;
  location: string | null;
  contentType: string | null;
  body: string;
}

/** One request, connected to the address checked before it (so a DNS answer cannot change under it). */
async function once(
  url: URL,
  method: string,
  body: string | null,
  pinned: { address: string; family: 4 | 6 },
  deadline: number,
) {
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise<Fetched>((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new Error('The request timed out'));
    const req = mod.request(
      url,
      {
        method,
        headers: body ? { 'content-type': 'application/json' } : {},
        lookup: (_host, opts, cb) => {
          if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: unknown[]) => void)(null, [pinned]);
          else cb(null, pinned.address, pinned.family);
        },
        servername: url.hostname,
      },
      (res) => {
        let size = 0;
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy(new Error(`The response is larger than ${MAX_RESPONSE_BYTES} bytes`));
            return;
          }
          parts.push(c);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            location: (res.headers.location as string | undefined) ?? null,
            contentType: (res.headers['content-type'] as string | undefined) ?? null,
            body: Buffer.concat(parts).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => req.destroy(new Error('The request timed out')), remaining);
    req.on('error', reject);
    req.on('close', () => clearTimeout(timer));
    req.end(body ?? undefined);
  });
}

function checkUrl(raw: string, tool: ToolItem) {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('The url is not valid');
  }
  // Plain http only to a loopback server of the local run (checked again once the host is resolved).
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopbackTargetsAllowed()))
    throw new Error('Only https URLs are allowed');
  if (url.username || url.password) throw new Error('Credentials in the url are not allowed');
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (!allowedHosts(tool).includes(host)) throw new Error(`The host ${host} is not allowed for this tool`);
  return url;
}

export async function httpRequest(tool: ToolItem, args: Record<string, unknown>): Promise<ToolOutcome> {
  const method = String(args.method ?? 'GET').toUpperCase();
  if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) return { ok: false, error: 'Unsupported method' };
  const body = args.body === undefined ? null : JSON.stringify(args.body);
  const deadline = Date.now() + Math.max(1, Number(tool.configParams?.timeoutSeconds ?? 30)) * 1000;
  let next = String(args.url ?? '');
  let m = method;
  let b = body;
  try {
    for (let hop = 0; ; hop++) {
      const url = checkUrl(next, tool);
      const guard = await addressGuard();
      const pinned = await guard.publicAddressOf(url.hostname);
      if (url.protocol === 'http:' && !guard.isLoopbackAddress(pinned.address))
        throw new Error('Only https URLs are allowed');
      const res = await once(url, m, b, pinned, deadline);
      if (res.status >= 300 && res.status < 400 && res.location) {
        if (hop >= MAX_REDIRECTS) return { ok: false, error: `More than ${MAX_REDIRECTS} redirects` };
        next = new URL(res.location, url).toString();
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && m === 'POST')) {
          m = 'GET';
          b = null;
        }
        continue;
      }
      return {
        ok: res.status < 400,
        ...(res.status < 400
          ? { result: { status: res.status, body: res.body } }
          : { error: `HTTP ${res.status}: ${res.body.slice(0, 200)}` }),
      } as ToolOutcome;
    }
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : 'The request failed' };
  }
}
