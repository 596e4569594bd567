import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { ApiError } from './errors.ts';

/** What a route handler returns; the runtime turns it into the HTTP response. */
export type Reply =
  | { kind: 'json'; status: number; result: unknown; headers?: Record<string, string> }
  | { kind: 'empty'; status: 204 | 202 | 304; headers?: Record<string, string> }
  | {
      kind: 'raw';
      status: number;
      contentType: string;
      body: string;
      base64?: boolean;
      headers?: Record<string, string>;
    };

export const ok = (result: unknown, headers?: Record<string, string>): Reply => ({
  kind: 'json',
  status: 200,
  result: result ?? null,
  headers,
});
export const created = (result: unknown): Reply => ({ kind: 'json', status: 201, result });
export const accepted = (result: unknown): Reply => ({ kind: 'json', status: 202, result });
export const noContent = (): Reply => ({ kind: 'empty', status: 204 });
export const raw = (
  contentType: string,
  body: string,
  opts: { status?: number; base64?: boolean; headers?: Record<string, string> } = {},
): Reply => ({ kind: 'raw', status: opts.status ?? 200, contentType, body, ...opts });

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
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

export function toHttp(reply: Reply, extra: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  switch (reply.kind) {
    case 'json':
      return {
        statusCode: reply.status,
        headers: { ...JSON_HEADERS, ...extra, ...reply.headers },
        body: JSON.stringify({ success: true, result: reply.result }),
      };
    case 'empty':
      return { statusCode: reply.status, headers: { ...extra, ...reply.headers } };
    case 'raw':
      return {
        statusCode: reply.status,
        headers: { 'content-type': reply.contentType, ...extra, ...reply.headers },
        body: reply.body,
        isBase64Encoded: reply.base64 ?? false,
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
