import { withWiring } from '#shared/data/wiring.ts';
import type { Writable } from 'node:stream';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { methodNotAllowed, routeNotFound } from '#shared/http/errors.ts';
import { openAiErrorToHttp } from '#shared/http/openai-error.ts';
import { errorToHttp } from '#shared/http/responses.ts';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { finishDeferredWork } from './after-answer.ts';
import type { ApiLambda } from './api-handler.ts';
import type { HttpResult } from './request.ts';

/**
 * Where the front door writes: Lambda's response stream, or locally Node's ServerResponse (whose
 * `writeHead` takes the place of Lambda's HTTP prelude).
 */
type ResponseSink = Writable & { writeHead?(status: number, headers: Record<string, string>): unknown };

type StreamingRun = (event: APIGatewayProxyEventV2, sink: ResponseSink, context: Context) => Promise<void>;

/**
 * Lambda's streaming globals exist only inside the Lambda Node.js runtime (the AWS SDK may define an
 * empty `awslambda` elsewhere, so the function itself is what tells).
 */
const lambdaRuntime = () =>
  typeof awslambda !== 'undefined' && typeof awslambda.streamifyResponse === 'function' ? awslambda : undefined;

/** A server-sent event: `event:` when named, one `data:` line per line of the data. */
export function sseEvent(data: unknown, event?: string): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  const lines = text.split('\n').map((line) => `data: ${line}`);
  return `${event ? `event: ${event}\n` : ''}${lines.join('\n')}\n\n`;
}

/**
 * Writes an answer to the sink as it is produced: status and headers first, then each chunk. When
 * the client goes away the producer is told (`return()` runs its `finally`, where a gateway settles
 * what was produced) and nothing more is written.
 */
async function writeResult(sink: ResponseSink, result: HttpResult): Promise<void> {
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
  );
  const meta = { statusCode: result.statusCode ?? 200, headers };
  const runtime = lambdaRuntime();
  if (!runtime) sink.writeHead?.(meta.statusCode, headers);
  const out = runtime ? runtime.HttpResponseStream.from(sink, meta) : sink;
  let closed = false;
  sink.on('close', () => {
    closed = true;
  });
  if (result.stream) {
    const iterator = result.stream[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        if (closed || sink.writableEnded) {
          await iterator.return?.();
          break;
        }
        out.write(next.value);
      }
    } catch (error) {
      await iterator.return?.().catch(() => undefined);
      throw error;
    }
  } else if (result.body !== undefined) {
    out.write(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
  }
  if (!sink.writableEnded) out.end();
}

/**
 * A group's streaming front door: a Lambda function URL in response-stream mode sends every request
 * to `$default`, so the route is matched here (only the group's `stream` routes), and then the same
 * middleware chain as the HTTP API runs (authentication, limits, validation, scope). Work deferred
 * past the answer (after-answer.ts) runs once the last byte is out.
 */
export function streamFrontDoor(api: ApiLambda, routes: readonly RouteDef[]): StreamingRun {
  const streamed = routes.filter((r) => r.transport === 'stream');
  const match = createRouteMatcher(streamed);
  // A front door whose every route speaks OpenAI's format (the gateway's /v1) answers unknown paths so too.
  const openAi = streamed.length > 0 && streamed.every((r) => r.errorFormat === 'openai');
  const run: StreamingRun = (event, sink, context) => withWiring(api.wiring, () => answer(event, sink, context));
  const answer: StreamingRun = async (event, sink, context) => {
    const method = event.requestContext?.http?.method ?? 'GET';
    const found = match(method, event.rawPath);
    let result: HttpResult;
    if (found.kind === 'route') {
      const routed = { ...event, routeKey: `${found.route.method} ${found.route.path}`, pathParameters: found.params };
      result = await api.core(routed, context);
    } else {
      const error = found.kind === 'method-not-allowed' ? methodNotAllowed(found.allowed) : routeNotFound();
      result = openAi ? openAiErrorToHttp(error, event.requestContext?.requestId) : errorToHttp(error);
    }
    try {
      await writeResult(sink, result);
    } finally {
      await finishDeferredWork();
    }
  };
  const runtime = lambdaRuntime();
  return runtime ? (runtime.streamifyResponse(run) as StreamingRun) : run;
}
