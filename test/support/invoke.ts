import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { lambdaContext, toApiGatewayEvent } from '#local/apigw-event.ts';
import { loadGroupHandler } from '#local/group-handler.ts';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import { servesHead } from '#shared/routes/head.ts';
import { routes } from '#local/routes.ts';

const match = createRouteMatcher(routes, { headServedBy: servesHead });

export interface InvokeOptions {
  token?: string;
  body?: unknown;
  /** Sent as-is (malformed JSON, other content types, binary multipart bodies). */
  rawBody?: string | Buffer;
  contentType?: string;
  query?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  ip?: string;
}

export interface InvokeResult {
  status: number;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read any route's answer by path; the contract tier checks its shape
  json: any;
  text: string;
}

type AnswerObserver = (method: string, pathWithQuery: string, res: InvokeResult) => void;
const observers = new Set<AnswerObserver>();

/** Sees every answer `invoke` returns until the returned function is called (the document check). */
export function observeAnswers(observer: AnswerObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

/**
 * Calls the real group handler in-process with the API Gateway event the route would produce,
 * exactly as the local server does but without a socket.
 */
export async function invoke(method: string, pathWithQuery: string, opts: InvokeOptions = {}): Promise<InvokeResult> {
  const [path, rawQueryFromPath = ''] = pathWithQuery.split('?');
  const extraQuery = new URLSearchParams(
    Object.entries(opts.query ?? {}).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  const rawQuery = [rawQueryFromPath, extraQuery].filter(Boolean).join('&');
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | Buffer | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
  const found = match(method, path!);
  const event = toApiGatewayEvent(
    { method, path: path!, rawQuery, headers, body, sourceIp: opts.ip ?? '127.0.0.1' },
    found.kind === 'route' ? found : null,
  );
  const group = found.kind === 'route' ? found.route.group : 'fallback';
  const handler = await loadGroupHandler(group);
  const res = (await handler(event, lambdaContext(group))) as APIGatewayProxyStructuredResultV2;
  const text = res.body ?? '';
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const result = { status: res.statusCode ?? 200, headers: (res.headers ?? {}) as Record<string, string>, json, text };
  for (const observe of observers) observe(method, path + (rawQuery ? `?${rawQuery}` : ''), result);
  return result;
}

/** Requests of one caller under one base path: the area tests' shorthand. */
export const caller = (base: string, token: string) => ({
  get: (path: string) => invoke('GET', `${base}${path}`, { token }),
  post: (path: string, body?: unknown) => invoke('POST', `${base}${path}`, { token, body }),
  put: (path: string, body?: unknown) => invoke('PUT', `${base}${path}`, { token, body }),
  patch: (path: string) => invoke('PATCH', `${base}${path}`, { token }),
  del: (path: string) => invoke('DELETE', `${base}${path}`, { token }),
});
