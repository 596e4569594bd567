import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { ApiError } from './errors.ts';

const REPLY: unique symbol = Symbol.for('saas.reply');

/**
 * What a handler returns when its answer is more than its result: headers, a raw body (PDF, CSS,
 * HTML, an OpenAI wire answer), 304, or a stream. Any other return value is the route's result,
 * sent with the route's declared status in the envelope.
 */
type Branded<T> = { readonly [REPLY]: true; headers?: Record<string, string> } & T;
/** The result with headers of its own; `T` is the result's type, checked against the route's schema. */
export type JsonReply<T = unknown> = Branded<{ kind: 'json'; status?: number; result: T }>;
export type EmptyReply = Branded<{ kind: 'empty'; status: 202 | 204 | 304 }>;
export type RawReply = Branded<{ kind: 'raw'; status: number; contentType: string; body: string; base64?: boolean }>;
export type StreamReply = Branded<{
  kind: 'stream';
  status: number;
  contentType: string;
  body: AsyncIterable<string | Uint8Array>;
}>;
export type Reply = JsonReply | EmptyReply | RawReply | StreamReply;
/** A reply whose whole body is known: what API Gateway's buffered integration carries. */
export type WholeReply = Exclude<Reply, StreamReply>;

export const isReply = (value: unknown): value is Reply =>
  typeof value === 'object' && value !== null && REPLY in value;

export const reply = {
  /** The result in the envelope with headers of its own; the route's status unless `status`. */
  json: <T>(result: T, opts: { status?: number; headers?: Record<string, string> } = {}): JsonReply<T> => ({
    [REPLY]: true,
    kind: 'json',
    result: (result ?? null) as T,
    ...opts,
  }),
  empty: (status: 202 | 204 | 304, headers?: Record<string, string>): EmptyReply => ({
    [REPLY]: true,
    kind: 'empty',
    status,
    headers,
  }),
  raw: (
    contentType: string,
    body: string,
    opts: { status?: number; base64?: boolean; headers?: Record<string, string> } = {},
  ): RawReply => ({ [REPLY]: true, kind: 'raw', contentType, body, ...opts, status: opts.status ?? 200 }),
  /** Chunks written as they are produced on the streaming front door, collected on the buffered one. */
  stream: (
    body: AsyncIterable<string | Uint8Array>,
    opts: { status?: number; contentType?: string; headers?: Record<string, string> } = {},
  ): StreamReply => ({
    [REPLY]: true,
    kind: 'stream',
    body,
    status: opts.status ?? 200,
    contentType: opts.contentType ?? 'text/event-stream; charset=utf-8',
    headers: opts.headers,
  }),
};

export interface Page<T> {
  items: T[];
  totalCount: number;
  totalPages: number;
  page: number;
  pageSize: number;
}

export const toPage = <T>(items: T[], totalCount: number, page: number, pageSize: number): Page<T> => ({
  items,
  totalCount,
  totalPages: Math.ceil(totalCount / pageSize),
  page,
  pageSize,
});

/** API answers carry tokens and tenant data: no cache keeps them unless a route says otherwise. */
export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** A reply other than a stream as API Gateway's structured result; `status` is the route's for a json reply without one. */
export function toHttp(out: WholeReply, status: number): APIGatewayProxyStructuredResultV2 {
  switch (out.kind) {
    case 'json':
      return {
        statusCode: out.status ?? status,
        headers: { ...JSON_HEADERS, ...out.headers },
        body: JSON.stringify({ success: true, result: out.result }),
      };
    case 'empty':
      return { statusCode: out.status, headers: { ...out.headers } };
    case 'raw':
      return {
        statusCode: out.status,
        headers: { 'content-type': out.contentType, ...out.headers },
        body: out.body,
        isBase64Encoded: out.base64 ?? false,
      };
  }
}

export function errorToHttp(err: ApiError, extra: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details !== undefined) error.details = err.details;
  return {
    statusCode: err.status,
    headers: { ...JSON_HEADERS, ...extra, ...err.headers },
    body: JSON.stringify({ success: false, error }),
  };
}
