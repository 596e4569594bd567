import { methodNotAllowed } from '#shared/http/errors.ts';
import { mediaType } from '#shared/http/sniff.ts';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import { API_GROUPS } from '#shared/routes/groups.ts';
import { hasBody, pathParamNames, routeErrors } from '#shared/routes/route-errors.ts';
import type { AuthRule, RouteDef } from '#shared/routes/types.ts';
import {
  ERROR_RESPONSES,
  ERROR_SCHEMAS,
  errorComponent,
  errorResponseFor,
  type ErrorStatus,
  type ResponseObject,
} from './error-responses.ts';
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
export type { ResponseObject };

/** This origin (the docs page), the local server, and the deployed API's address pattern. */
const DEFAULT_SERVERS: NonNullable<OpenApiOptions['servers']> = [
  { url: '/', description: 'The origin serving this document' },
  { url: 'http://127.0.0.1:3000', description: 'Local server (`npm start`)' },
  {
    url: 'https://{apiId}.execute-api.{region}.amazonaws.com',
    description: 'Deployed API: `cdk deploy` prints the exact address (stack output ApiUrl)',
    variables: { apiId: { default: 'your-api-id' }, region: { default: 'eu-west-1' } },
  },
];

/**
 * The OpenAPI 3.1 document of a route table: one operation per route (and per alias spelling),
 * its auth scheme, parameters, request body with an example, the success envelope around its
 * response schema, and each error status with the codes it can carry (in the error envelope, or OpenAI's
 * error shape on the `/v1` routes). Local-only routes are left out.
 */
export function buildOpenApiDocument(routes: readonly RouteDef[], options: OpenApiOptions = {}): OpenApiDocument {
  const converter = new SchemaConverter();
  const paths: OpenApiDocument['paths'] = {};
  const deployed = routes.filter((r) => !r.localOnly);
  const usedGroups = new Set<string>();

  const matcher = createRouteMatcher(deployed);
  for (const route of deployed) {
    usedGroups.add(route.group);
    const spellings = [route.path, ...(route.aliases ?? [])];
    const primary = operationFor(route, converter, matcher.shadows(route));
    spellings.forEach((path, i) => {
      const operation = i === 0 ? primary : structuredClone(primary);
      if (i > 0) {
        operation.operationId = `${route.id}.alias${spellings.length > 2 ? i : ''}`;
        operation.description = `Alias of \`${route.method} ${route.path}\` (same handler).\n\n${operation.description as string}`;
        operation['x-alias-of'] = route.id;
      }
      paths[path] ??= {};
      const item = paths[path];
      const method = route.method.toLowerCase();
      if (item[method]) throw new Error(`Two routes for ${route.method} ${path}`);
      item[method] = operation;
    });
  }

  const securitySchemes = {
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
      schemas: { ...ERROR_SCHEMAS, ...converter.components },
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([status, e]) => [e.name, errorComponent(Number(status) as ErrorStatus)]),
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
  const shownBody = route.documentedBody ?? route.body;
  const bodyIn = shownBody ? converter.convert(shownBody, 'input', `${base}.body`) : undefined;
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
  for (const header of route.headers ?? []) {
    parameters.push({
      name: header.name,
      in: 'header',
      required: header.required ?? false,
      description: header.description,
      schema: { type: 'string', ...(header.pattern ? { pattern: header.pattern } : {}) },
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
  for (const other of route.alsoAnswers ?? []) {
    const primary = operation.responses[String(route.status)] as ResponseObject;
    operation.responses[String(other.status)] =
      other.status === 304
        ? { description: `Not modified: ${other.when}` }
        : { ...structuredClone(primary), description: `Created: ${other.when}` };
  }
  const errors = routeErrors(route);
  if (shadowsLiteral) errors.set(405, [methodNotAllowed]);
  for (const [status, carried] of [...errors].sort(([a], [b]) => a - b))
    operation.responses[String(status)] = errorResponseFor(route, status, carried);
  if (route.rateLimit) {
    operation['x-rate-limit'] = { ...route.rateLimit };
  }
  operation['x-auth'] = { ...route.auth };
  return operation;
}

/**
 * Public routes say so explicitly (`security: []`), so no client sends credentials it need not. A
 * provider's webhook is public too: its signature is a header parameter the handler checks (a bad
 * one is a 400, not the 401 a security scheme promises).
 */
function securityFor(auth: AuthRule): Record<string, string[]>[] {
  switch (auth.kind) {
    case 'none':
    case 'signature':
      return [];
    case 'bearer':
    case 'gatewayKey':
      return [{ bearerAuth: [] }];
    case 'internalKey':
      return [auth.roles ? { internalApiKey: [], bearerAuth: [] } : { internalApiKey: [] }];
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
      lines.push(
        route.headers?.some((h) => h.required)
          ? `**Auth:** none; the ${auth.provider} signature headers below, over the raw body, which the handler verifies.`
          : `**Auth:** none; the ${auth.provider} verify token in the query, which the handler checks.`,
      );
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
    // The signature covers the exact bytes; a body that is not a JSON object is refused after it.
    return {
      required: true,
      description: 'A JSON object, taken as received (the signature covers the exact bytes).',
      content: jsonContent(bodyIn ?? { type: 'object' }, converter),
    };
  }
  return { required: true, content: jsonContent(bodyIn ?? {}, converter) };
}

/** The success answer, and beside it the streamed form where the route has one. */
function successResponse(route: RouteDef, converter: SchemaConverter): ResponseObject {
  const answer = jsonSuccess(route, converter);
  if (!route.eventStream) return answer;
  const events = {
    schema: { type: 'string', description: `Server-sent events (\`data: ...\` lines) ${route.eventStream}` },
    // OpenAPI 3.1 has no item schema for a stream (3.2's itemSchema): each event's data goes here.
    ...(route.events ? { 'x-sse-data': converter.convert(route.events, 'output', `${route.id}.event`) } : {}),
  };
  return { ...answer, content: { ...answer.content, 'text/event-stream': events } };
}

function jsonSuccess(route: RouteDef, converter: SchemaConverter): ResponseObject {
  const description =
    route.status === 201 ? 'Created' : route.status === 202 ? 'Accepted' : route.status === 204 ? 'No content' : 'OK';
  if (route.rawResponse) {
    const events = route.events ? { 'x-sse-data': converter.convert(route.events, 'output', `${route.id}.event`) } : {};
    const content = Object.fromEntries(
      [route.rawResponse.contentType].flat().map((type) => {
        const contentType = mediaType(type);
        const schema = route.response
          ? converter.convert(route.response, 'output', `${route.id}.response`)
          : rawSchema(contentType);
        return [contentType, { schema, ...events }];
      }),
    );
    return { description, content };
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

const INFO_DESCRIPTION = [
  'Multi-tenant SaaS platform API. Generated from the route table; every deployed route is listed.',
  '',
  '**Envelope.** JSON responses are `{"success": true, "result": ...}` or `{"success": false, "error": {"code", "message", "details"?}}`. Binary and text responses (JWKS, this document, the docs page) are not enveloped; 204 has no body.',
  '',
  '**Auth.** Most routes take `Authorization: Bearer <access token>`; use *Authorize* to set it. Service routes take `X-Internal-Api-Key`; provider webhooks carry the provider signature.',
  '',
  '**Paging.** `page` >= 1 (default 1), `pageSize` 1..100 (default 20); results carry `totalCount` and `totalPages`.',
  '',
  '**Errors.** Each operation lists its error statuses; where a status carries codes of its own beside the generic one, its description names them and `error.code` is one of them.',
].join('\n');
