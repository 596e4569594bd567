import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { RouteDef } from '#shared/routes/types.ts';

export interface IncomingRequest {
  method: string;
  path: string;
  /** Raw query string without `?`. */
  rawQuery?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  sourceIp?: string;
}

const TEXT_TYPES = /^(application\/(.+\+)?json|text\/|application\/x-www-form-urlencoded)/;

/**
 * An API Gateway HTTP API (payload 2.0) event, as API Gateway would build it for the matched
 * route: lower-cased headers, decoded single-valued query parameters (repeated keys joined by
 * commas), path parameters, and a base64 body for binary content types.
 */
export function toApiGatewayEvent(
  req: IncomingRequest,
  match: { route: RouteDef; params: Record<string, string> } | null,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
  const query: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(req.rawQuery ?? '')) query[k] = k in query ? `${query[k]},${v}` : v;
  const contentType = headers['content-type'] ?? '';
  const bodyBuffer = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
  const binary = bodyBuffer !== undefined && contentType !== '' && !TEXT_TYPES.test(contentType);
  const hasBody = bodyBuffer !== undefined && bodyBuffer.length > 0;
  const now = Date.now();
  // A HEAD that reaches a GET route comes through the HEAD route declared beside it.
  const method = req.method === 'HEAD' && match?.route.method === 'GET' ? 'HEAD' : match?.route.method;
  const routeKey = match ? `${method} ${match.route.path}` : '$default';
  return {
    version: '2.0',
    routeKey,
    rawPath: req.path,
    rawQueryString: req.rawQuery ?? '',
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(match && Object.keys(match.params).length ? { pathParameters: match.params } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: req.method,
        path: req.path,
        protocol: 'HTTP/1.1',
        sourceIp: req.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: crypto.randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    ...(hasBody ? { body: binary ? bodyBuffer.toString('base64') : bodyBuffer.toString('utf8') } : {}),
    isBase64Encoded: hasBody && binary,
  };
}

export const lambdaContext = (functionName: string): Context =>
  ({
    functionName,
    awsRequestId: crypto.randomUUID(),
    callbackWaitsForEmptyEventLoop: false,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  }) as Context;
