import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { internalError, methodNotAllowed, payloadTooLarge } from '#shared/http/errors.ts';
import { errorToHttp } from '#shared/http/responses.ts';
import { openAiErrorToHttp } from '#shared/http/openai-error.ts';
import { underV1 } from '#areas/llm-gateway/wire-path.ts';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import { CORS_ALLOW_HEADERS } from '#shared/http/cors.ts';
import { API_GROUPS, type GroupSpec } from '#shared/routes/groups.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { loggedPath } from '#shared/runtime/logged-path.ts';
import { servesHead } from '#shared/routes/head.ts';
import { lambdaContext, toApiGatewayEvent } from './apigw-event.ts';
import { loadGroupHandler, loadGroupStreamHandler, type HttpHandler, type StreamHandler } from './group-handler.ts';

export type { HttpHandler };

export interface ListenerOptions {
  routes: readonly RouteDef[];
  /** Local-only JSON pages (`/_local/...`), answered without a Lambda handler. */
  pages?: Record<string, () => unknown>;
  /** Resolves a group's Lambda handler; the default imports `functions/<group>/index.ts`. */
  loadHandler?: (group: string) => Promise<HttpHandler>;
  /** Resolves a group's streaming front door; the default imports its `streamHandler`. */
  loadStreamHandler?: (group: string) => Promise<StreamHandler>;
  /** API Gateway's own request limit is 10 MB; a little over it so the routes' limits decide. */
  maxBodyBytes?: number;
}

/** The TCP peer, as API Gateway reports it: plain IPv4 rather than its IPv4-mapped IPv6 spelling. */
const peerAddress = (req: IncomingMessage) => (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');

/** The body, or null as soon as it exceeds the limit (a declared length over it is not read at all). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData).pause();
      resolve(null);
    };
    req
      .on('data', onData)
      .once('error', reject)
      .once('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** CORS of a front door open to any origin (no cookies: its credential is a header the page holds). */
const ANY_ORIGIN = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET,POST,OPTIONS',
  'access-control-allow-headers': CORS_ALLOW_HEADERS.join(','),
  'access-control-expose-headers': 'retry-after',
};
const opensToAnyOrigin = (route: RouteDef) =>
  route.transport === 'stream' && (API_GROUPS[route.group] as GroupSpec).anyOrigin === true;

function send(res: ServerResponse, result: APIGatewayProxyResultV2) {
  // Payload 2.0 lets a handler return a bare value; API Gateway then answers 200 with it as JSON.
  const structured = typeof result === 'object' && result !== null && 'statusCode' in result;
  const out = structured
    ? result
    : {
        statusCode: 200,
        headers: { 'content-type': 'application/json' },
        body: typeof result === 'string' ? result : JSON.stringify(result),
      };
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(out.headers ?? {})) headers[k.toLowerCase()] = String(v);
  if (out.cookies?.length) headers['set-cookie'] = out.cookies;
  const body = out.body === undefined ? undefined : Buffer.from(out.body, out.isBase64Encoded ? 'base64' : 'utf8');
  if (body) headers['content-length'] = String(body.length);
  res.writeHead(out.statusCode ?? 200, headers).end(body);
}

/**
 * Serves the route table the way API Gateway and Lambda would: match the route, build the
 * payload 2.0 event, run the group's real handler, write its result. Unmatched requests go to
 * the `fallback` function, as the HTTP API's `$default` route does.
 */
export function createApiListener(opts: ListenerOptions) {
  const match = createRouteMatcher(opts.routes, { headServedBy: servesHead });
  const limit = opts.maxBodyBytes ?? 11 * 1024 * 1024;
  const load = opts.loadHandler ?? loadGroupHandler;
  const handlers = new Map<string, Promise<HttpHandler>>();
  const handlerFor = (group: string) => {
    let found = handlers.get(group);
    if (!found) {
      found = load(group);
      handlers.set(group, found);
      found.catch(() => handlers.delete(group));
    }
    return found;
  };
  // Resolved once per group, as the buffered handlers are: a dynamic import per request still goes
  // through the module loader's hooks (tsx's run off the main thread), which cost up to tens of ms on a busy machine.
  const loadStream = opts.loadStreamHandler ?? loadGroupStreamHandler;
  const streamHandlers = new Map<string, Promise<StreamHandler>>();
  const streamHandlerFor = (group: string) => {
    let found = streamHandlers.get(group);
    if (!found) {
      found = loadStream(group);
      streamHandlers.set(group, found);
      found.catch(() => streamHandlers.delete(group));
    }
    return found;
  };

  async function serve(req: IncomingMessage, res: ServerResponse) {
    const [path = '/', rawQuery = ''] = (req.url ?? '/').split(/\?(.*)/s);
    const method = req.method ?? 'GET';
    const page = opts.pages?.[path];
    if (page) {
      if (method !== 'GET') return send(res, errorToHttp(methodNotAllowed(['GET'])));
      return send(res, {
        statusCode: 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(page()),
      });
    }
    const body = await readBody(req, limit);
    if (body === null) {
      // The rest is discarded, not buffered. Closing the socket instead would reset a client
      // still uploading before it could read the 413.
      req.resume();
      // An OpenAI client reads OpenAI's errors only (deployed, API Gateway answers its own 413 here).
      const tooLarge = payloadTooLarge(limit);
      return send(res, underV1(path) ? openAiErrorToHttp(tooLarge) : errorToHttp(tooLarge));
    }
    const preflight = method === 'OPTIONS' ? match(String(req.headers['access-control-request-method']), path) : null;
    if (preflight?.kind === 'route' && opensToAnyOrigin(preflight.route)) {
      res.writeHead(204, { ...ANY_ORIGIN, 'access-control-max-age': '600' }).end();
      return;
    }
    const found = match(method, path);
    const route = found.kind === 'route' ? found : null;
    // As the group's function URL answers: any origin (the handler checks the widget's own).
    if (route && opensToAnyOrigin(route.route)) for (const [k, v] of Object.entries(ANY_ORIGIN)) res.setHeader(k, v);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
    const event = toApiGatewayEvent(
      { method, path, rawQuery, headers, body: body.length ? body : undefined, sourceIp: peerAddress(req) },
      route,
    );
    const group = route?.route.group ?? 'fallback';
    // A stream route goes through the group's streaming front door, which writes to the socket as
    // the answer is produced, exactly as the function URL does in Lambda.
    if (route?.route.transport === 'stream') {
      const stream = await streamHandlerFor(group);
      return stream(event, res, lambdaContext(`${group}-stream`));
    }
    const handler = await handlerFor(group);
    send(res, await handler(event, lambdaContext(group)));
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    serve(req, res).catch((err: unknown) => {
      // The query may carry a credential (a presigned signature); the path is written as the access log writes it.
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const found = match(req.method ?? 'GET', path);
      console.error(
        `[local-server] ${req.method} ${loggedPath(found.kind === 'route' ? found.route : null, path)} failed:`,
        err,
      );
      if (!res.headersSent) send(res, errorToHttp(internalError()));
      else res.destroy();
    });
  };
}
