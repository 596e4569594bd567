import { mediaType } from '#shared/http/sniff.ts';
import { createShadowCheck } from '#shared/http/route-shapes.ts';
import { API_GROUPS } from '#shared/routes/groups.ts';
import type { AuthRule, RouteDef } from '#shared/routes/types.ts';
import { exampleFor } from './examples.ts';
import { objectProperties, parameterSchema, SchemaConverter, type JsonSchema } from './json-schema.ts';

export interface OpenApiOptions {
  title?: string;
  version?: string;
  /** Where clients send requests; omitted, DEFAULT_SERVERS. */
  servers?: {
    url: string;
    description?: string;
    variables?: Record<string, { default: string; description?: string }>;
  }[];
}

export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, ResponseObject>;
    headers: Record<string, unknown>;
    securitySchemes: Record<string, unknown>;
  };
};

export type Operation = Record<string, unknown> & {
  operationId: string;
  responses: Record<string, ResponseObject | { $ref: string }>;
};
export type ResponseObject = {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: JsonSchema; example?: unknown }>;
};

/** Header a provider's webhook signature travels in, until the route table names it. */
const SIGNATURE_HEADERS: Record<Extract<AuthRule, { kind: 'signature' }>['provider'], string> = {
  'payment-provider-a': 'Payment-Provider-A-Signature',
  'payment-provider-b': 'Payment-Provider-B-Signature',
  // AI connector: each chat platform's own header (WhatsApp's GET handshake carries hub.verify_token instead).
  slack: 'X-Slack-Signature',
  teams: 'Authorization',
  whatsapp: 'X-Hub-Signature-256',
  telegram: 'X-Telegram-Bot-Api-Secret-Token',
  discord: 'X-Signature-Ed25519',
};
const signatureScheme = (provider: string) =>
  `${provider.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}Signature`;

export const ERROR_RESPONSES = {
  400: {
    name: 'BadRequest',
    code: 'VALIDATION_ERROR',
    text: 'VALIDATION_ERROR when a path parameter, query value or body field fails its schema (`details` lists `{path, message}`); INVALID_JSON when the body is not JSON or not an object',
  },
  401: {
    name: 'Unauthorized',
    code: 'UNAUTHORIZED',
    text: 'UNAUTHORIZED: missing, malformed, expired or revoked credentials',
  },
  403: {
    name: 'Forbidden',
    code: 'FORBIDDEN',
    text: "FORBIDDEN: authenticated but not allowed (role, permission, or another tenant's `tenantId`)",
  },
  404: {
    name: 'NotFound',
    code: 'NOT_FOUND',
    text: 'NOT_FOUND: the record does not exist or belongs to another tenant',
  },
  405: {
    name: 'MethodNotAllowed',
    code: 'METHOD_NOT_ALLOWED',
    text: 'METHOD_NOT_ALLOWED: the path names a literal route beside this template (`/api/tools/built-in` beside `/api/tools/{toolId}`) that has no such method; the `Allow` header lists its methods',
  },
  409: {
    name: 'Conflict',
    code: 'CONFLICT',
    text: 'CONFLICT: a unique value is taken, the state change is not allowed, or a concurrent update won',
  },
  413: {
    name: 'PayloadTooLarge',
    code: 'PAYLOAD_TOO_LARGE',
    text: 'PAYLOAD_TOO_LARGE: the body is over the route limit',
  },
  415: {
    name: 'UnsupportedMediaType',
    code: 'UNSUPPORTED_MEDIA_TYPE',
    text: 'UNSUPPORTED_MEDIA_TYPE: wrong Content-Type for the route',
  },
  429: {
    name: 'RateLimited',
    code: 'RATE_LIMITED',
    text: 'RATE_LIMITED: the route\'s own limit (`Retry-After` gives the seconds to wait); on a deployed stage also API Gateway\'s stage throttle, whose body is its own `{"message":"Too Many Requests"}`',
  },
  500: {
    name: 'InternalError',
    code: 'INTERNAL_ERROR',
    text: 'INTERNAL_ERROR: anything unexpected; the message is generic',
  },
  503: {
    name: 'ServiceUnavailable',
    code: 'SERVICE_UNAVAILABLE',
    text: 'SERVICE_UNAVAILABLE: the data store is throttling; retry after `Retry-After` seconds',
  },
} as const;
export type ErrorStatus = keyof typeof ERROR_RESPONSES;

/** This origin (the docs page), the local server, and the deployed API's address pattern. */
export const DEFAULT_SERVERS: NonNullable<OpenApiOptions['servers']> = [
  { url: '/', description: 'The origin serving this document' },
  { url: 'http://127.0.0.1:3000', description: 'Local server (`npm start`)' },
  {
    url: 'https://{apiId}.execute-api.{region}.amazonaws.com',
    description: 'Deployed API: `cdk deploy` prints the exact address (stack output ApiUrl)',
    variables: { apiId: { default: 'your-api-id' }, region: { default: 'eu-west-1' } },
  },
];

const isWrite = (route: RouteDef) => route.method !== 'GET';
const hasBody = (route: RouteDef) =>
  route.body !== undefined || (route.bodyType !== undefined && route.bodyType !== 'json');
const mentionsTenant = (converted: (JsonSchema | undefined)[]) =>
  converted.some((s) => s && typeof s.properties === 'object' && s.properties !== null && 'tenantId' in s.properties);

/**
 * The error statuses a route can answer, from what the runtime does for its definition:
 * parsed input or a body → 400; credentials → 401; roles, permission or a tenantId input → 403;
 * path parameters or a tenantId input → 404; writes → 409; a body → 413 (and 415 unless the body is taken raw);
 * always 429 (a route's own limit, else the API stage's throttle), 500 and 503. Statuses a handler adds itself are the
 * route's `errors`, or read from its summary where the route table names them ("401 INVALID_CREDENTIALS", "(409 CONFLICT)").
 */
export function errorStatusesFor(route: RouteDef, inputs: (JsonSchema | undefined)[] = []): number[] {
  const statuses = new Set<number>();
  if (route.params || route.query || hasBody(route)) statuses.add(400);
  const { auth } = route;
  if (auth.kind !== 'none') statuses.add(401);
  if (
    (auth.kind === 'bearer' && (auth.roles || auth.permission || mentionsTenant(inputs))) ||
    (auth.kind === 'gatewayKey' && (auth.permission || mentionsTenant(inputs))) ||
    (auth.kind === 'internalKey' && auth.roles)
  ) {
    statuses.add(403);
  }
  // A tenantId input names a tenant that may not exist (a SystemAdmin may name any).
  if (pathParamNames(route.path).length || mentionsTenant(inputs)) statuses.add(404);
  if (isWrite(route)) statuses.add(409);
  if (hasBody(route)) statuses.add(413);
  if (hasBody(route) && route.bodyType !== 'raw') statuses.add(415);
  // The route's own limit, or the stage throttle in front of every route.
  statuses.add(429);
  statuses.add(500).add(503);
  for (const m of route.summary.matchAll(/\b([45]\d\d)\b/g)) statuses.add(Number(m[1]));
  for (const status of route.errors ?? []) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}

export const pathParamNames = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);

/**
 * The OpenAPI 3.1 document of a route table: one operation per route (and per alias spelling),
 * its auth scheme, parameters, request body with an example, the success envelope around its
 * response schema, and every error response in the error envelope. Local-only routes are left out.
 */
export function buildOpenApiDocument(routes: readonly RouteDef[], options: OpenApiOptions = {}): OpenApiDocument {
  const converter = new SchemaConverter();
  const paths: OpenApiDocument['paths'] = {};
  const deployed = routes.filter((r) => !r.localOnly);
  const usedGroups = new Set<string>();
  const usedProviders = new Set<string>();

  const shadowCheck = createShadowCheck(deployed);
  for (const route of deployed) {
    usedGroups.add(route.group);
    if (route.auth.kind === 'signature') usedProviders.add(route.auth.provider);
    const spellings = [route.path, ...(route.aliases ?? [])];
    const primary = operationFor(route, converter, shadowCheck.shadows(route));
    spellings.forEach((path, i) => {
      const operation = i === 0 ? primary : structuredClone(primary);
      if (i > 0) {
        operation.operationId = `${route.id}.alias${spellings.length > 2 ? i : ''}`;
        operation.description = `Alias of \`${route.method} ${route.path}\` (same handler).\n\n${operation.description as string}`;
        operation['x-alias-of'] = route.id;
      }
      const item = (paths[path] ??= {});
      const method = route.method.toLowerCase();
      if (item[method]) throw new Error(`Two routes for ${route.method} ${path}`);
      item[method] = operation;
    });
  }

  const securitySchemes: Record<string, unknown> = {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'Access token from `POST /api/auth/login` (or `refresh-token`); verify with `/.well-known/jwks.json`.',
    },
    widgetSession: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Widget-Session',
      description: 'A widget session token (`ws.…`): one conversation of one widget, short-lived.',
    },
    internalApiKey: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Internal-Api-Key',
      description: 'Key for service-to-service calls (vault). Kept in SSM; never given to browsers.',
    },
  };
  for (const provider of [...usedProviders].sort()) {
    securitySchemes[signatureScheme(provider)] = {
      type: 'apiKey',
      in: 'header',
      name: SIGNATURE_HEADERS[provider as keyof typeof SIGNATURE_HEADERS] ?? 'Signature',
      description: `Signature computed by ${provider} over the raw body; checked by the webhook handler.`,
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'SaaS platform API',
      version: options.version ?? '0.0.0',
      description: INFO_DESCRIPTION,
      // Placeholders a deployment fills in; the linters want both objects present.
      contact: { name: 'Platform team' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: options.servers ?? DEFAULT_SERVERS,
    tags: Object.entries(API_GROUPS)
      .filter(([name]) => usedGroups.has(name))
      .map(([name, spec]) => ({ name, description: spec.description })),
    paths,
    components: {
      schemas: { ...ENVELOPE_SCHEMAS, ...converter.components },
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([status, e]) => [e.name, errorResponse(Number(status) as ErrorStatus)]),
      ),
      headers: {
        RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'string', pattern: '^\\d+$' } },
      },
      securitySchemes,
    },
  };
}

function operationFor(route: RouteDef, converter: SchemaConverter, shadowsLiteral = false): Operation {
  const base = route.id;
  const paramsIn = route.params ? converter.convert(route.params, 'input', `${base}.params`) : undefined;
  const paramsOut = route.params ? converter.convert(route.params, 'output', `${base}.params`) : undefined;
  const queryIn = route.query ? converter.convert(route.query, 'input', `${base}.query`) : undefined;
  const queryOut = route.query ? converter.convert(route.query, 'output', `${base}.query`) : undefined;
  const bodyIn = route.body ? converter.convert(route.body, 'input', `${base}.body`) : undefined;
  const jsonBodyIn = route.jsonBody ? converter.convert(route.jsonBody, 'input', `${base}.jsonBody`) : undefined;

  const parameters: unknown[] = [];
  const pathProps = new Map(paramsIn ? objectProperties(paramsIn).map((p) => [p.name, p.schema]) : []);
  const pathPropsOut = new Map(paramsOut ? objectProperties(paramsOut).map((p) => [p.name, p.schema]) : []);
  for (const name of pathParamNames(route.path)) {
    parameters.push({
      name,
      in: 'path',
      required: true,
      schema: parameterSchema(pathProps.get(name), pathPropsOut.get(name)),
    });
  }
  if (queryIn) {
    const outProps = new Map(queryOut ? objectProperties(queryOut).map((p) => [p.name, p.schema]) : []);
    for (const { name, schema, required } of objectProperties(queryIn)) {
      const merged = parameterSchema(schema, outProps.get(name));
      const { description, ...rest } = merged;
      parameters.push({ name, in: 'query', required, ...(description ? { description } : {}), schema: rest });
    }
  }

  const operation: Operation = {
    operationId: route.id,
    summary: route.summary,
    description: describe(route),
    tags: [route.group],
    security: securityFor(route.auth),
    ...(parameters.length ? { parameters } : {}),
    responses: {},
  };
  if (hasBody(route)) operation.requestBody = requestBody(route, bodyIn, converter, jsonBodyIn);

  operation.responses[String(route.status)] = successResponse(route, converter);
  const statuses = errorStatusesFor(route, [paramsIn, queryIn, bodyIn]);
  if (shadowsLiteral) statuses.push(405);
  for (const status of [...new Set(statuses)].sort((a, b) => a - b)) {
    const known = ERROR_RESPONSES[status as ErrorStatus];
    operation.responses[String(status)] = known
      ? { $ref: `#/components/responses/${known.name}` }
      : {
          description: 'Error named in the summary',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        };
  }
  if (route.rateLimit) {
    operation['x-rate-limit'] = { ...route.rateLimit };
  }
  operation['x-auth'] = { ...route.auth };
  return operation;
}

/** Public routes say so explicitly (`security: []`), so no client sends credentials it need not. */
function securityFor(auth: AuthRule): Record<string, string[]>[] {
  switch (auth.kind) {
    case 'none':
      return [];
    case 'bearer':
    case 'gatewayKey':
      return [{ bearerAuth: [] }];
    case 'internalKey':
      return [auth.roles ? { internalApiKey: [], bearerAuth: [] } : { internalApiKey: [] }];
    case 'signature':
      return [{ [signatureScheme(auth.provider)]: [] }];
    case 'widgetSession':
      return [{ widgetSession: [] }];
  }
}

function describe(route: RouteDef): string {
  const lines: string[] = [];
  const { auth } = route;
  switch (auth.kind) {
    case 'none':
      lines.push('**Auth:** none.');
      break;
    case 'bearer': {
      const who = [
        auth.roles?.length ? `role ${auth.roles.map((r) => `\`${r}\``).join(' or ')}` : '',
        auth.permission ? `permission \`${auth.permission}\`` : '',
      ].filter(Boolean);
      lines.push(
        `**Auth:** bearer token${who.length ? ` with ${who.join(' or ')} (SystemAdmin always passes)` : ' (any signed-in user)'}.` +
          (auth.allowExpired ? ' An expired but otherwise valid token is accepted.' : ''),
      );
      break;
    }
    case 'internalKey':
      lines.push(
        `**Auth:** internal API key in \`X-Internal-Api-Key\`${auth.roles ? `, and a bearer token with role ${auth.roles.map((r) => `\`${r}\``).join(' or ')}` : ''}.`,
      );
      break;
    case 'signature':
      lines.push(`**Auth:** ${auth.provider} webhook signature over the raw body.`);
      break;
    case 'gatewayKey':
      lines.push(
        `**Auth:** a gateway key (\`Authorization: Bearer gk_...\`) or a bearer token${auth.permission ? ` with permission \`${auth.permission}\`` : ''}. Errors in OpenAI's format \`{"error":{"message","type","code"}}\`.`,
      );
      break;
    case 'widgetSession':
      lines.push(
        '**Auth:** the widget session token (`X-Widget-Session`) that `POST /api/conversations/widget/sessions` gave; it names one conversation.',
      );
      break;
  }
  if (route.rateLimit) {
    const { limit, windowSeconds, name } = route.rateLimit;
    lines.push(
      `**Rate limit:** ${limit} requests per ${windowSeconds} s (counter \`${name}\`); over it, 429 with \`Retry-After\`.`,
    );
  }
  if (route.maxBodyBytes) lines.push(`**Body limit:** ${route.maxBodyBytes} bytes.`);
  if (route.aliases?.length) lines.push(`**Also served at:** ${route.aliases.map((a) => `\`${a}\``).join(', ')}.`);
  return lines.join('\n\n');
}

function jsonContent(schema: JsonSchema, converter: SchemaConverter) {
  const example = exampleFor(schema, converter.components);
  return { 'application/json': { schema, ...(example !== undefined ? { example } : {}) } };
}

function requestBody(
  route: RouteDef,
  bodyIn: JsonSchema | undefined,
  converter: SchemaConverter,
  jsonBodyIn?: JsonSchema,
) {
  const bodyType = route.bodyType ?? 'json';
  if (bodyType === 'multipart') {
    const schema = bodyIn ?? {
      type: 'object',
      properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } },
      required: ['file'],
    };
    return {
      required: true,
      ...(jsonBodyIn ? { description: 'A file as multipart/form-data, or JSON; the Content-Type header picks.' } : {}),
      content: { 'multipart/form-data': { schema }, ...(jsonBodyIn ? jsonContent(jsonBodyIn, converter) : {}) },
    };
  }
  if (bodyType === 'raw') {
    return {
      required: true,
      description: 'Taken as received (the signature covers the exact bytes).',
      content: { [bodyIn ? 'application/json' : '*/*']: { schema: bodyIn ?? {} } },
    };
  }
  return { required: true, content: jsonContent(bodyIn ?? {}, converter) };
}

function successResponse(route: RouteDef, converter: SchemaConverter): ResponseObject {
  const description =
    route.status === 201 ? 'Created' : route.status === 202 ? 'Accepted' : route.status === 204 ? 'No content' : 'OK';
  if (route.rawResponse) {
    const contentType = mediaType(route.rawResponse.contentType);
    const schema = route.response
      ? converter.convert(route.response, 'output', `${route.id}.response`)
      : rawSchema(contentType);
    return { description, content: { [contentType]: { schema } } };
  }
  if (route.status === 204 || (route.status === 202 && !route.response)) return { description };
  const result = route.response ? converter.convert(route.response, 'output', `${route.id}.response`) : {};
  const example = route.response ? exampleFor(result, converter.components, { optional: true }) : undefined;
  return {
    description,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          properties: { success: { const: true }, result },
          required: ['success', 'result'],
          additionalProperties: false,
        },
        ...(example !== undefined ? { example: { success: true, result: example } } : {}),
      },
    },
  };
}

/** A raw body without a schema: text for text types, any JSON for JSON, bytes otherwise. */
function rawSchema(contentType: string): JsonSchema {
  if (/json/.test(contentType)) return {};
  if (/^text\/|javascript|xml/.test(contentType)) return { type: 'string' };
  return { type: 'string', contentMediaType: contentType, contentEncoding: 'base64' };
}

function errorResponse(status: ErrorStatus) {
  const { code, text } = ERROR_RESPONSES[status];
  const retry = status === 429 || status === 503;
  const example: Record<string, unknown> = { code, message: EXAMPLE_MESSAGES[code] };
  if (code === 'VALIDATION_ERROR')
    example.details = [{ path: 'body.name', message: 'Too small: expected string to have >=1 characters' }];
  return {
    description: text,
    ...(retry ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } } : {}),
    ...(status === 405
      ? { headers: { Allow: { description: 'The methods of the path', schema: { type: 'string' } } } }
      : {}),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/ErrorEnvelope' },
        example: { success: false, error: example },
      },
    },
  };
}

const EXAMPLE_MESSAGES: Record<string, string> = {
  VALIDATION_ERROR: 'Request validation failed',
  UNAUTHORIZED: 'Authentication required',
  FORBIDDEN: 'You are not allowed to do this',
  NOT_FOUND: 'Resource not found',
  METHOD_NOT_ALLOWED: 'Method not allowed on this route',
  CONFLICT: 'Value already in use',
  PAYLOAD_TOO_LARGE: 'Body exceeds 262144 bytes',
  UNSUPPORTED_MEDIA_TYPE: 'Content-Type must be application/json',
  RATE_LIMITED: 'Too many requests, try again later',
  INTERNAL_ERROR: 'An unexpected error occurred',
  SERVICE_UNAVAILABLE: 'Service busy, try again shortly',
};

const ENVELOPE_SCHEMAS: Record<string, JsonSchema> = {
  ErrorEnvelope: {
    type: 'object',
    description: 'Every error: a machine code in UPPER_SNAKE, a safe message, and sometimes details.',
    properties: {
      success: { const: false },
      error: {
        type: 'object',
        properties: {
          code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
          message: { type: 'string' },
          details: {
            description:
              'For VALIDATION_ERROR: one `{path, message}` per issue, `path` starting with params, query or body.',
          },
        },
        required: ['code', 'message'],
        additionalProperties: false,
      },
    },
    required: ['success', 'error'],
    additionalProperties: false,
  },
};

const INFO_DESCRIPTION = [
  'Multi-tenant SaaS platform API. Generated from the route table; every deployed route is listed.',
  '',
  '**Envelope.** JSON responses are `{"success": true, "result": ...}` or `{"success": false, "error": {"code", "message", "details"?}}`. Binary and text responses (JWKS, this document, the docs page) are not enveloped; 204 has no body.',
  '',
  '**Auth.** Most routes take `Authorization: Bearer <access token>`; use *Authorize* to set it. Service routes take `X-Internal-Api-Key`; provider webhooks carry the provider signature.',
  '',
  '**Paging.** `page` >= 1 (default 1), `pageSize` 1..100 (default 20); results carry `totalCount` and `totalPages`.',
].join('\n');
