import { request } from 'node:http';
import { expect, inject } from 'vitest';
import { fileParameterStore } from '#local/file-parameter-store.ts';
import { parameterStore } from '#shared/platform/ports.ts';
import { expectContract } from './contract.ts';
import { tokenFor } from './tokens.ts';

export const e2e = () => inject('e2e');

export interface ApiOptions {
  token?: string;
  body?: unknown;
  /** Sent as-is, e.g. malformed JSON. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Bind the client socket to this address (fetch cannot), to check the source IP. */
  localAddress?: string;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read any route's answer by path; the contract tier checks its shape
  json: any;
  text: string;
}

const parse = (text: string) => {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
};

function viaNodeHttp(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  localAddress: string,
) {
  return new Promise<{ status: number; headers: Headers; text: string }>((resolve, reject) => {
    const req = request(url, { method, headers, localAddress }, (res) => {
      let text = '';
      res
        .setEncoding('utf8')
        .on('data', (c: string) => (text += c))
        .on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
          resolve({ status: res.statusCode!, headers: h, text });
        });
    });
    req.on('error', reject).end(body);
  });
}

/** One request to the running local server over real HTTP. */
/** Every e2e response is checked against the OpenAPI document before the test sees it. */
export async function api(method: string, path: string, opts: ApiOptions = {}): Promise<ApiResponse> {
  const res = await send(method, path, opts);
  expectContract(method, path, res);
  return res;
}

/** The request without the contract check (for the contract tests themselves). */
export async function send(method: string, path: string, opts: ApiOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const body = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const url = `${e2e().baseUrl}${path}`;
  if (opts.localAddress) {
    const res = await viaNodeHttp(url, method, headers, body, opts.localAddress);
    return { ...res, json: parse(res.text) };
  }
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: parse(text), text };
}

let installed = false;

/**
 * An access token signed by the production signing code with the server's own key, read from
 * the server's LOCAL_DATA_DIR (read-only), so the server accepts it as if it had issued it.
 */
export async function mintToken(subject: Parameters<typeof tokenFor>[0] = {}): Promise<string> {
  if (!installed) {
    parameterStore.install(fileParameterStore(e2e().dataDir, { readOnly: true }));
    installed = true;
  }
  return tokenFor(subject);
}

/** Polls `read` until `done` holds or `ms` pass; the last answer either way. */
export async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A tenant created by a SystemAdmin over HTTP, with the SystemAdmin's and its owner's tokens. */
export async function adminMadeTenant(opts: {
  slugPrefix: string;
  name?: string;
  planType: number;
  maxAgents: number;
  maxKnowledgeBases: number;
}) {
  const admin = await mintToken({ role: 'SystemAdmin' });
  const slug = `${opts.slugPrefix}-${crypto.randomUUID().slice(0, 8)}`;
  const tenant = await api('POST', '/api/tenants', {
    token: admin,
    body: {
      slug,
      name: opts.name ?? `Story ${slug}`,
      email: `o@${slug}.example.com`,
      planType: opts.planType,
      maxAgents: opts.maxAgents,
      maxKnowledgeBases: opts.maxKnowledgeBases,
      maxSeats: 5,
    },
  });
  expect(tenant).toAnswer(201);
  const tenantId = tenant.json.result.id as string;
  return { admin, slug, tenantId, owner: await mintToken({ tenantId }) };
}
