/**
 * The Lambda Node.js runtime's part in a function's own process, as aws-lambda-ric 4.x does it (its
 * native client cannot be built by `npm ci` here): the `awslambda` globals set before the code loads,
 * the handler string resolved in the task root (`index.handler`: index, index.js, index.mjs, index.cjs),
 * one invocation at a time, and for a handler marked by `streamifyResponse` a response stream whose
 * `HttpResponseStream.from` sets the integration content type and writes the JSON prelude and eight
 * NUL bytes before the first body byte. The host (function-host.ts) talks to it over IPC in place of
 * the Runtime API. Built with esbuild into plain JavaScript: the bundle runs in plain Node.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

const HANDLER_STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const STREAM_RESPONSE = 'response';
const PRELUDE_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';

type Send = (message: Record<string, unknown>) => void;
const send: Send = (message) => process.send?.(message);

interface ResponseStream extends Writable {
  setContentType(type: string): void;
  _onBeforeFirstWrite?: (write: (chunk: string | Uint8Array) => void) => void;
}

function responseStream(id: string): ResponseStream {
  let contentType = 'application/octet-stream';
  let started = false;
  const raw = (chunk: string | Uint8Array) => {
    if (!started) {
      started = true;
      send({ type: 'stream-start', id, contentType });
    }
    send({ type: 'chunk', id, data: Buffer.from(chunk).toString('base64') });
  };
  const stream = new Writable({
    write(chunk, _encoding, done) {
      raw(chunk as Buffer);
      done();
    },
    final(done) {
      if (!started) raw(new Uint8Array(0));
      done();
    },
  }) as ResponseStream;
  stream.setContentType = (type) => {
    if (started) throw new Error('Cannot set content-type, too late.');
    contentType = type;
  };
  const write = stream.write.bind(stream);
  stream.write = ((chunk: unknown, ...rest: never[]) => {
    const data = typeof chunk === 'string' || chunk instanceof Uint8Array ? chunk : JSON.stringify(chunk);
    if (!started && typeof stream._onBeforeFirstWrite === 'function') {
      const hook = stream._onBeforeFirstWrite;
      stream._onBeforeFirstWrite = undefined;
      hook((c) => raw(c));
    }
    return write(data, ...rest);
  }) as typeof stream.write;
  return stream;
}

(globalThis as Record<string, unknown>).awslambda = {
  ...((globalThis as Record<string, unknown>).awslambda as object),
  streamifyResponse: (handler: Record<symbol, unknown>) => {
    handler[HANDLER_STREAMING] = STREAM_RESPONSE;
    return handler;
  },
  HttpResponseStream: {
    from(underlying: ResponseStream, prelude: unknown) {
      underlying.setContentType(PRELUDE_CONTENT_TYPE);
      const metadata = JSON.stringify(prelude);
      underlying._onBeforeFirstWrite = (write) => {
        write(metadata);
        write(new Uint8Array(8));
      };
      return underlying;
    },
  },
};

const errorOf = (err: unknown) => {
  const e = err instanceof Error ? err : new Error(String(err));
  return { errorType: e.name, errorMessage: e.message, trace: (e.stack ?? '').split('\n') };
};

type Handler = ((event: unknown, a?: unknown, b?: unknown) => Promise<unknown>) & Record<symbol, unknown>;

async function loadHandler(): Promise<Handler> {
  const root = process.env.LAMBDA_TASK_ROOT ?? process.cwd();
  const [, moduleName, handlerName] = /^([^.]*)\.(.*)$/.exec(process.env._HANDLER ?? '') ?? [];
  if (!moduleName || !handlerName) throw new Error(`Bad handler ${process.env._HANDLER}`);
  const base = resolve(root, moduleName);
  const file = ['', '.js', '.mjs', '.cjs'].map((ext) => `${base}${ext}`).find((f) => existsSync(f));
  if (!file) throw new Error(`Cannot find module '${moduleName}' in ${root}`);
  const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const find = (from: unknown) =>
    handlerName.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as never)[k] : undefined), from);
  const handler = find(mod) ?? find(mod.default);
  if (typeof handler !== 'function') throw new Error(`${process.env._HANDLER} is undefined or not exported`);
  return handler as Handler;
}

interface Invocation {
  id: string;
  event: unknown;
  deadline: number;
  invokedFunctionArn: string;
}

const contextOf = (inv: Invocation) => ({
  functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
  functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
  invokedFunctionArn: inv.invokedFunctionArn,
  memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
  awsRequestId: inv.id,
  logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
  logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => Math.max(0, inv.deadline - Date.now()),
});

try {
  const handler = await loadHandler();
  const streaming = handler[HANDLER_STREAMING] === STREAM_RESPONSE;
  process.on('message', async (inv: Invocation) => {
    const context = contextOf(inv);
    try {
      if (streaming) {
        const stream = responseStream(inv.id);
        await handler(inv.event, stream, context);
        if (!stream.writableFinished) await new Promise((done) => stream.end(done));
        send({ type: 'result', id: inv.id, result: null });
      } else {
        const result = await handler(inv.event, context);
        send({ type: 'result', id: inv.id, result: result === undefined ? null : JSON.parse(JSON.stringify(result)) });
      }
    } catch (err) {
      send({ type: 'error', id: inv.id, error: errorOf(err) });
    }
  });
  send({ type: 'ready' });
} catch (err) {
  send({ type: 'init-error', error: errorOf(err) });
}
