import type { DeclaredError } from '#shared/http/errors.ts';
import { openAiCodeOf } from '#shared/http/openai-error.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import type { JsonSchema } from './json-schema.ts';

export type ResponseObject = {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: JsonSchema; example?: unknown }>;
};

/** The generic codes of each status, as shared components: what a status derived from the definition carries. */
export const ERROR_RESPONSES = {
  400: {
    name: 'BadRequest',
    codes: ['VALIDATION_ERROR', 'INVALID_JSON'],
    text: 'VALIDATION_ERROR when a path parameter, query value or body field fails its schema (`details` lists `{path, message}`); INVALID_JSON when the body is not JSON or not an object',
  },
  401: {
    name: 'Unauthorized',
    codes: ['UNAUTHORIZED'],
    text: 'UNAUTHORIZED: missing, malformed, expired or revoked credentials',
  },
  403: {
    name: 'Forbidden',
    codes: ['FORBIDDEN'],
    text: "FORBIDDEN: authenticated but not allowed (role, permission, or another tenant's `tenantId`)",
  },
  404: {
    name: 'NotFound',
    codes: ['NOT_FOUND'],
    text: 'NOT_FOUND: the record does not exist or belongs to another tenant',
  },
  405: {
    name: 'MethodNotAllowed',
    codes: ['METHOD_NOT_ALLOWED'],
    text: 'METHOD_NOT_ALLOWED: the path names a literal route beside this template (`/api/tools/built-in` beside `/api/tools/{toolId}`) that has no such method; the `Allow` header lists its methods',
  },
  409: {
    name: 'Conflict',
    codes: ['CONFLICT'],
    text: 'CONFLICT: a unique value is taken, the state change is not allowed, or a concurrent update won',
  },
  413: {
    name: 'PayloadTooLarge',
    codes: ['PAYLOAD_TOO_LARGE'],
    text: 'PAYLOAD_TOO_LARGE: the body is over the route limit (any request, a GET with a body included)',
  },
  415: {
    name: 'UnsupportedMediaType',
    codes: ['UNSUPPORTED_MEDIA_TYPE'],
    text: 'UNSUPPORTED_MEDIA_TYPE: wrong Content-Type for the route',
  },
  429: {
    name: 'RateLimited',
    codes: ['RATE_LIMITED'],
    text: 'RATE_LIMITED: the route\'s own limit (`Retry-After` gives the seconds to wait); on a deployed stage also API Gateway\'s stage throttle, whose body is its own `{"message":"Too Many Requests"}`',
  },
  500: {
    name: 'InternalError',
    codes: ['INTERNAL_ERROR'],
    text: 'INTERNAL_ERROR: anything unexpected; the message is generic',
  },
  503: {
    name: 'ServiceUnavailable',
    codes: ['SERVICE_UNAVAILABLE'],
    text: 'SERVICE_UNAVAILABLE: the data store is throttling; retry after `Retry-After` seconds',
  },
} as const;
export type ErrorStatus = keyof typeof ERROR_RESPONSES;

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

const RETRY_AFTER = { $ref: '#/components/headers/RetryAfter' };
const ALLOW = { description: 'The methods of the path', schema: { type: 'string' } };

/** A shared error response: a status's generic codes. */
export function errorComponent(status: ErrorStatus): ResponseObject {
  const { codes, text } = ERROR_RESPONSES[status];
  const code = codes[0];
  const example: Record<string, unknown> = { code, message: EXAMPLE_MESSAGES[code] };
  if (code === 'VALIDATION_ERROR')
    example.details = [{ path: 'body.name', message: 'Too small: expected string to have >=1 characters' }];
  return {
    description: text,
    ...(status === 429 || status === 503 ? { headers: { 'Retry-After': RETRY_AFTER } } : {}),
    ...(status === 405 ? { headers: { Allow: ALLOW } } : {}),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/ErrorEnvelope' },
        example: { success: false, error: example },
      },
    },
  };
}

/** `Retry-After` as the status's errors send it: with all of them, or with the ones named. */
function retryAfter(errors: readonly DeclaredError[]) {
  const sending = errors.filter((e) => e.retryAfter);
  if (!sending.length) return {};
  if (sending.length === errors.length) return { 'Retry-After': RETRY_AFTER };
  return {
    'Retry-After': {
      description: `Seconds to wait before retrying; sent with ${sending.map((e) => e.code).join(', ')}`,
      required: false,
      schema: { type: 'string', pattern: '^\\d+$' },
    },
  };
}

/** The envelope with `error.code` (and any other field given) narrowed to what one status carries. */
function narrowed(base: JsonSchema, fields: Record<string, JsonSchema>): JsonSchema {
  const schema = structuredClone(base) as JsonSchema & {
    properties: { error: { properties: Record<string, JsonSchema> } };
  };
  Object.assign(schema.properties.error.properties, fields);
  if (base === ENVELOPE) delete schema.description;
  return schema;
}

const headersOf = (headers: Record<string, unknown>) => (Object.keys(headers).length ? { headers } : {});

/**
 * A status of an operation and the codes it can carry: the shared component when they are its
 * generic ones, else the description lists each code and the schema narrows `error.code` to them.
 */
export function errorResponseFor(route: RouteDef, status: number, errors: readonly DeclaredError[]) {
  if (route.errorFormat === 'openai') return openAiResponse(status, errors);
  const shared = ERROR_RESPONSES[status as ErrorStatus] as (typeof ERROR_RESPONSES)[ErrorStatus] | undefined;
  const generic = new Set<string>(shared?.codes ?? []);
  if (shared && errors.every((e) => generic.has(e.code))) return { $ref: `#/components/responses/${shared.name}` };
  const own = errors.filter((e) => !generic.has(e.code));
  const lines = [
    ...(errors.some((e) => generic.has(e.code)) ? [`- ${shared!.text}`] : []),
    ...own.map((e) => `- ${e.code}${e.message ? `: ${e.message}` : ''}`),
  ];
  const shown = own.find((e) => e.message) ?? errors.find((e) => e.message ?? EXAMPLE_MESSAGES[e.code]) ?? errors[0]!;
  return {
    description: `One of:\n${lines.join('\n')}`,
    ...headersOf({ ...retryAfter(errors), ...(status === 405 ? { Allow: ALLOW } : {}) }),
    content: {
      'application/json': {
        schema: narrowed(ENVELOPE, { code: { type: 'string', enum: errors.map((e) => e.code) } }),
        example: {
          success: false,
          error: { code: shown.code, message: shown.message ?? EXAMPLE_MESSAGES[shown.code] ?? shown.code },
        },
      },
    },
  };
}

/** The `/v1` routes answer OpenAI's error shape: the wire codes and types each status carries. */
function openAiResponse(status: number, errors: readonly DeclaredError[]) {
  const wire = errors.map((e) => ({ ...openAiCodeOf(status, e.code), from: e }));
  const codes = [...new Set(wire.map((w) => w.code))];
  const types = [...new Set(wire.map((w) => w.type))];
  const lines = codes.map((code) => {
    const from = wire.filter((w) => w.code === code).map((w) => w.from.code);
    return `- \`${code}\` (type \`${wire.find((w) => w.code === code)!.type}\`; the platform's ${from.join(', ')})`;
  });
  const shown = wire.find((w) => w.from.message) ?? wire[0]!;
  return {
    description: `OpenAI's error format. One of:\n${lines.join('\n')}`,
    ...headersOf(retryAfter(errors)),
    content: {
      'application/json': {
        schema: narrowed(OPENAI_ERROR, {
          code: { type: 'string', enum: codes },
          type: { type: 'string', enum: types },
        }),
        example: {
          error: {
            message: shown.from.message ?? EXAMPLE_MESSAGES[shown.from.code] ?? shown.from.code,
            type: shown.type,
            code: shown.code,
            param: null,
          },
        },
      },
    },
  };
}

const ENVELOPE: JsonSchema = {
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
};

/** What the `/v1` routes answer instead: each error response shows it, narrowed to its codes. */
const OPENAI_ERROR: JsonSchema = {
  type: 'object',
  description:
    "OpenAI's error format, which the `/v1` routes answer so OpenAI clients read it: `code` is OpenAI's where it has one (`invalid_api_key`, `rate_limit_exceeded`, `insufficient_quota`), else the platform's code in lower case; `param` names the body field a validation error is about.",
  properties: {
    error: {
      type: 'object',
      properties: {
        message: { type: 'string' },
        type: { type: 'string' },
        code: { type: 'string' },
        param: { type: ['string', 'null'] },
      },
      required: ['message', 'type', 'code', 'param'],
      additionalProperties: false,
    },
  },
  required: ['error'],
  additionalProperties: false,
};

export const ERROR_SCHEMAS: Record<string, JsonSchema> = { ErrorEnvelope: ENVELOPE };
