import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { apiDocument } from '#api/openapi/api-document.ts';
import { buildOpenApiDocument, type ResponseObject } from '#api/openapi/document.ts';
import { routes } from '#local/routes.ts';
import { defineError, type ErrorDef } from '#shared/http/errors.ts';
import type { RouteDef } from '#shared/routes/types.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type Schema = { properties: { error: { properties: Record<string, { enum?: string[] }>; required?: string[] } } };
const media = (res: unknown) => (res as ResponseObject).content!['application/json']!;
const enumOf = (res: unknown, field = 'code') =>
  (media(res).schema as unknown as Schema).properties.error.properties[field]!.enum;

const route = (over: Partial<RouteDef> & Pick<RouteDef, 'id' | 'method' | 'path'>): RouteDef => ({
  group: 'catalog',
  auth: { kind: 'bearer' },
  scope: { kind: 'public' },
  summary: over.id,
  status: 200,
  ...over,
});

/** Every error definition a module exports (the groups beside them, such as TENANT_REFUSALS, are arrays). */
const definitionsOf = (module: Record<string, unknown>) =>
  Object.entries(module).filter(
    (e): e is [string, ErrorDef<never[]>] => typeof e[1] === 'function' && 'code' in e[1] && 'status' in e[1],
  );

/** Each area's errors.ts (and the local stand-ins'), as `path → definitions`. */
async function areaDefinitions() {
  const files = [
    ...readdirSync(`${ROOT}areas`).map((area) => `areas/${area}/errors.ts`),
    'local/providers/errors.ts',
  ].filter((f) => readdirSync(`${ROOT}${f.split('/').slice(0, -1).join('/')}`).includes('errors.ts'));
  return Promise.all(
    files.map(async (file) => ({ file, defs: definitionsOf(await import(/* @vite-ignore */ `${ROOT}${file}`)) })),
  );
}

describe('the errors of the OpenAPI document', () => {
  const thingClosed = defineError(409, 'THING_CLOSED', 'The thing is closed');
  const busy = defineError(503, 'THING_BUSY', 'Try again shortly', { retryAfterSeconds: 1 });
  const doc = buildOpenApiDocument([
    route({ id: 't.close', method: 'POST', path: '/api/things/close', errors: [thingClosed, busy] }),
    route({ id: 't.plain', method: 'POST', path: '/api/things/plain' }),
    route({
      id: 't.v1',
      method: 'POST',
      path: '/api/v1/things',
      auth: { kind: 'gatewayKey' },
      errorFormat: 'openai',
      body: z.object({ model: z.string() }),
    }),
  ]);
  const responses = (path: string) => doc.paths[path]!.post!.responses;

  it("lists per status the codes it can carry: the description names them, the schema's error.code is one of them", () => {
    const conflictRes = responses('/api/things/close')['409'] as ResponseObject;
    expect(conflictRes.description).toEqual(expect.stringMatching(/CONFLICT: .*\n- THING_CLOSED: The thing is closed/));
    expect(enumOf(conflictRes)).toEqual(['CONFLICT', 'THING_CLOSED']);
    expect(media(conflictRes).example).toEqual({
      success: false,
      error: { code: 'THING_CLOSED', message: 'The thing is closed' },
    });
    const unavailable = responses('/api/things/close')['503'] as ResponseObject;
    expect(enumOf(unavailable)).toEqual(['SERVICE_UNAVAILABLE', 'THING_BUSY']);
    expect(unavailable.headers).toEqual({ 'Retry-After': { $ref: '#/components/headers/RetryAfter' } });
  });

  it('keeps the shared response where a status carries only its generic codes', () => {
    expect(responses('/api/things/close')['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(responses('/api/things/plain')['409']).toEqual({ $ref: '#/components/responses/Conflict' });
    expect(responses('/api/things/plain')['503']).toEqual({ $ref: '#/components/responses/ServiceUnavailable' });
  });

  it("documents OpenAI's error shape on the openai-format routes, with OpenAI's codes", () => {
    const all = Object.entries(responses('/api/v1/things')).filter(([status]) => Number(status) >= 400);
    expect(all.length).toBeGreaterThan(3);
    for (const [status, res] of all) {
      expect(res, status).not.toHaveProperty('$ref');
      expect((media(res).schema as unknown as Schema).properties.error.required, status).toEqual([
        'message',
        'type',
        'code',
        'param',
      ]);
      expect(media(res).example, status).toEqual({
        error: { message: expect.any(String), type: expect.any(String), code: expect.any(String), param: null },
      });
    }
    expect(enumOf(responses('/api/v1/things')['401'])).toEqual(['invalid_api_key']);
    expect(enumOf(responses('/api/v1/things')['400'])).toEqual(['invalid_request_error']);
  });

  it("shows the gateway's refusals of a chat completion as OpenAI clients receive them", () => {
    const chat = apiDocument().paths['/api/llm-gateway/v1/chat/completions']!.post!.responses;
    expect(enumOf(chat['429'])).toEqual(['rate_limit_exceeded', 'insufficient_quota', 'budget_exceeded']);
    expect(enumOf(chat['429'], 'type')).toEqual(['rate_limit_error', 'insufficient_quota']);
    // A SystemAdmin's tenantId may name no tenant: the generic 404 beside the gateway's own.
    expect(enumOf(chat['404'])).toEqual(['not_found', 'model_not_found']);
    expect(enumOf(chat['503'])).toEqual(['service_unavailable', 'upstream_error']);
  });

  it("lists an area's codes where its routes answer them", () => {
    const send = apiDocument().paths['/api/conversations/widget/messages']!.post!.responses;
    expect(enumOf(send['409'])).toEqual(
      expect.arrayContaining(['CONFLICT', 'CONVERSATION_CLOSED', 'REQUEST_IN_PROGRESS', 'AGENT_NOT_PUBLISHED']),
    );
    // The gateway's 503 is the agent's to explain: a visitor never sees UPSTREAM_ERROR.
    expect(enumOf(send['503'])).toEqual(['SERVICE_UNAVAILABLE', 'AGENT_UNAVAILABLE']);
    const playground = apiDocument().paths['/api/ai/agents/{agentId}/chat']!.post!.responses;
    expect(enumOf(playground['503'])).toEqual(['SERVICE_UNAVAILABLE', 'AGENT_UNAVAILABLE']);
    expect(enumOf(send['429'])).toEqual(['RATE_LIMITED', 'WIDGET_LIMIT_REACHED', 'TOKEN_LIMIT_REACHED']);
  });
});

describe('error definitions', () => {
  it('every code of an errors.ts is declared by a route, or says why no client receives it', async () => {
    const declared = new Set(routes.flatMap((r) => r.errors ?? []));
    const dead = (await areaDefinitions()).flatMap(({ file, defs }) =>
      defs
        .filter(([, def]) => !def.internal && !declared.has(def))
        .map(([name, def]) => `${file}: ${name} (${def.code})`),
    );
    expect(
      dead,
      'declare each in the `errors` of the routes that answer it, or mark it `internal` with the reason',
    ).toEqual([]);
  });

  it('no route declares an internal one', async () => {
    const internal = new Set(
      (await areaDefinitions()).flatMap(({ defs }) => defs.map(([, d]) => d).filter((d) => d.internal)),
    );
    expect(routes.filter((r) => r.errors?.some((e) => internal.has(e as ErrorDef<never[]>))).map((r) => r.id)).toEqual(
      [],
    );
  });

  it('a code means one status wherever it is defined', async () => {
    const all = [
      ...definitionsOf(await import('#shared/http/errors.ts')),
      ...(await areaDefinitions()).flatMap(({ defs }) => defs),
    ].map(([, def]) => def);
    const statuses = new Map<string, Set<number>>();
    for (const def of all) statuses.set(def.code, (statuses.get(def.code) ?? new Set()).add(def.status));
    expect([...statuses].filter(([, s]) => s.size > 1).map(([code, s]) => `${code}: ${[...s].join(', ')}`)).toEqual([]);
    expect(all.length).toBeGreaterThan(80);
  });
});
