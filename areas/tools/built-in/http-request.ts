import { once } from '#shared/routes/types.ts';
import * as z from 'zod/mini';
import type { ToolItem } from '#areas/tools/records.ts';
import { outboundUrl, pinTarget, requestPinned } from '#shared/http/pinned-request.ts';
import { defineToolType, type ToolOutcome } from './definition.ts';

export const MAX_RESPONSE_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 3;

/** The tools routes store the hosts lowercased (areas/tools/routes.ts); older tools have none. */
const allowedHosts = (tool: ToolItem): string[] => (tool.configParams.allowedHosts ?? []).map((h) => h.toLowerCase());

function checkUrl(raw: string, tool: ToolItem) {
  const url = outboundUrl(raw);
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (!allowedHosts(tool).includes(host)) throw new Error(`The host ${host} is not allowed for this tool`);
  return url;
}

const READ_METHODS = new Set(['GET', 'HEAD']);
const methodOf = (args: { method?: string }) => (args.method ?? 'GET').toUpperCase();

const inputSchema = once(() =>
  z.looseObject({
    url: z
      .string()
      .check(z.maxLength(2048), z.meta({ description: 'The https URL to call (one of the allowed hosts)' })),
    method: z.optional(
      z.string().check(z.maxLength(10), z.meta({ description: 'GET (default), POST, PUT, PATCH or DELETE' })),
    ),
    body: z.optional(z.unknown().check(z.meta({ description: 'A JSON body, sent as application/json' }))),
  }),
);

async function httpRequestCall(tool: ToolItem, args: z.output<ReturnType<typeof inputSchema>>): Promise<ToolOutcome> {
  const method = methodOf(args);
  if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) return { ok: false, error: 'Unsupported method' };
  const body = args.body === undefined ? null : JSON.stringify(args.body);
  const deadline = Date.now() + Math.max(1, Number(tool.configParams?.timeoutSeconds ?? 30)) * 1000;
  let next = args.url;
  let m = method;
  let b = body;
  try {
    for (let hop = 0; ; hop++) {
      const target = await pinTarget(checkUrl(next, tool));
      const res = await requestPinned(target, {
        method: m,
        headers: b ? { 'content-type': 'application/json' } : {},
        body: b,
        deadline,
        maxBytes: MAX_RESPONSE_BYTES,
        overLimit: 'fail',
      });
      const url = target.url;
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

/** HTTP Request: a call to one of the tool's allowed hosts; a read (GET, HEAD) changes nothing. */
export const httpRequest = defineToolType({
  codes: ['http_request'],
  inputSchema,
  sideEffects: (args) => !READ_METHODS.has(methodOf(args)),
  execute: httpRequestCall,
});
