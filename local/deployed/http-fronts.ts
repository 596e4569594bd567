import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import type { HttpMethod } from '#shared/routes/types.ts';
import { toApiGatewayEvent } from '../apigw-event.ts';
import type { FunctionHost } from './function-host.ts';
import type { StackTemplate } from './template.ts';

const PRELUDE_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';

export interface RunningFront {
  url: string;
  close(): Promise<void>;
}

/** A server listening on a free loopback port, and how to stop it (open connections too). */
export async function listening(server: Server | Http2Server): Promise<RunningFront> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const listen = (handler: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>) =>
  listening(
    createServer((req, res) => {
      handler(req, res).catch((err) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: String(err) }));
      });
    }),
  );

const incoming = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const url = new URL(req.url ?? '/', 'http://x');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    rawQuery: url.search.slice(1),
    headers,
    body: chunks.length ? Buffer.concat(chunks) : undefined,
    sourceIp: req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1',
  };
};

interface ProxyResult {
  statusCode?: number;
  headers?: Record<string, string>;
  cookies?: string[];
  body?: string;
  isBase64Encoded?: boolean;
}

/** A payload 2.0 answer as API Gateway turns it into HTTP (a value without statusCode is a 200 JSON body). */
function writeProxyResult(res: ServerResponse, payload: unknown) {
  const structured = payload && typeof payload === 'object' && 'statusCode' in payload;
  const r: ProxyResult = structured
    ? (payload as ProxyResult)
    : { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) };
  const headers: Record<string, string | string[]> = { ...(r.headers ?? {}) };
  if (r.cookies?.length) headers['set-cookie'] = r.cookies;
  res.writeHead(r.statusCode ?? 200, headers);
  res.end(r.body === undefined ? undefined : r.isBase64Encoded ? Buffer.from(r.body, 'base64') : r.body);
}

/**
 * The HTTP API as the template declares it: each `AWS::ApiGatewayV2::Route` on the function its
 * integration names, `$default` for the rest, a payload 2.0 event per request, the answer turned
 * back into HTTP; a function that fails is API Gateway's 500.
 */
export async function startHttpApi(
  t: StackTemplate,
  hostOf: (functionArn: string) => FunctionHost,
): Promise<RunningFront> {
  const integrations = new Map(
    t.ofType('AWS::ApiGatewayV2::Integration').map(([id, r]) => [id.split('/').pop()!, r.Properties.IntegrationUri]),
  );
  const routes: { method: HttpMethod; path: string; routeKey: string; functionArn: string }[] = [];
  let fallback: string | undefined;
  for (const [, r] of t.ofType('AWS::ApiGatewayV2::Route')) {
    const target = r.Properties.Target['Fn::Join'][1][1].Ref as string;
    const functionArn = t.resolve(integrations.get(target)) as string;
    const routeKey = r.Properties.RouteKey as string;
    if (routeKey === '$default') fallback = functionArn;
    else {
      const [method, path] = routeKey.split(' ') as [HttpMethod, string];
      routes.push({ method, path, routeKey, functionArn });
    }
  }
  const match = createRouteMatcher(routes);
  return listen(async (req, res) => {
    const request = await incoming(req);
    const found = match(request.method, request.path);
    const route = found.kind === 'route' ? found.route : undefined;
    const functionArn = route?.functionArn ?? fallback;
    if (!functionArn) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end('{"message":"Not Found"}');
    }
    const event = toApiGatewayEvent(
      request,
      found.kind === 'route'
        ? { route: { method: found.route.method, path: found.route.path } as never, params: found.params }
        : null,
    );
    const out = await hostOf(functionArn).invoke(event);
    if (!out.ok) {
      res.writeHead(500, { 'content-type': 'application/json' });
      return res.end('{"message":"Internal Server Error"}');
    }
    writeProxyResult(res, out.payload);
  });
}

/**
 * A Lambda function URL in RESPONSE_STREAM mode: every request is a `$default` event; the answer's
 * bytes are sent as the function writes them, and when the function used `HttpResponseStream.from`
 * (the integration content type) its JSON prelude up to the eight NUL bytes gives status and headers.
 */
export async function startFunctionUrl(host: FunctionHost): Promise<RunningFront> {
  return listen(async (req, res) => {
    const request = await incoming(req);
    const event = { ...toApiGatewayEvent(request, null), routeKey: '$default' };
    const call = await host.invokeStream(event);
    const contentType = await call.contentType;
    const iterator = call.body[Symbol.asyncIterator]();
    req.on('close', () => {
      if (!res.writableEnded) iterator.return?.();
    });
    let pending = Buffer.alloc(0);
    if (contentType === PRELUDE_CONTENT_TYPE) {
      let at = -1;
      while (at < 0) {
        const next = await iterator.next();
        if (next.done) break;
        pending = Buffer.concat([pending, next.value]);
        at = pending.indexOf(Buffer.alloc(8));
      }
      const prelude = JSON.parse(pending.subarray(0, Math.max(0, at)).toString('utf8') || '{}') as ProxyResult;
      pending = at < 0 ? Buffer.alloc(0) : pending.subarray(at + 8);
      const headers: Record<string, string | string[]> = { ...(prelude.headers ?? {}) };
      if (prelude.cookies?.length) headers['set-cookie'] = prelude.cookies;
      res.writeHead(prelude.statusCode ?? 200, headers);
    } else {
      const done = await call.done;
      if (!done.ok) {
        res.writeHead(502, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(done.payload));
      }
      res.writeHead(200, { 'content-type': contentType });
    }
    if (pending.length) res.write(pending);
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      res.write(next.value);
    }
    res.end();
    await call.done;
  });
}
