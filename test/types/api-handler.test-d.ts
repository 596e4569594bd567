/**
 * The handler typing that holds a function's wiring to its route table, checked by the compiler
 * (`npm run typecheck`, part of `npm test`): every `@ts-expect-error` below marks code that must not
 * compile, and the typecheck fails if it ever does.
 */
import { expectTypeOf } from 'vitest';
import * as z from 'zod/mini';
import type { Principal } from '#shared/auth/access-token.ts';
import { reply } from '#shared/http/responses.ts';
import { defineRoutes, scope } from '#shared/routes/types.ts';
import { apiHandler, type HandlersFor } from '#shared/runtime/api-handler.ts';
import type { CredentialResolvers } from '#shared/runtime/credentials.ts';

const routes = defineRoutes([
  {
    id: 'thing.get',
    method: 'GET',
    path: '/api/things/{thingId}',
    group: 'catalog',
    auth: { kind: 'bearer', permission: 'suppliers:read' },
    scope: scope.tenant(),
    summary: 'A thing',
    status: 200,
    schemas: () => ({
      params: z.object({ thingId: z.string() }),
      response: z.object({ id: z.string(), count: z.number() }),
    }),
  },
  {
    id: 'thing.ping',
    method: 'POST',
    path: '/api/things/ping',
    group: 'catalog',
    auth: { kind: 'none' },
    scope: scope.public,
    summary: 'Nothing back',
    status: 204,
    schemas: () => ({ body: z.object({ note: z.string() }) }),
  },
]);

type Handlers = HandlersFor<typeof routes>;
type RequestOf<Id extends keyof Handlers> = Parameters<Handlers[Id]>[0];

const answers: Handlers = {
  'thing.get': async ({ params, tenantId }) => ({ id: `${tenantId}/${params.thingId}`, count: 1 }),
  'thing.ping': async () => undefined,
};
const tenants = { exists: async () => true, bySlug: async () => null };
apiHandler(routes, answers, { tenants });
// @ts-expect-error a table whose routes act on a caller's tenant needs the tenant directory
apiHandler(routes, answers);

// Inputs are typed by the route's own schemas, auth and scope.
expectTypeOf<RequestOf<'thing.get'>['params']>().toEqualTypeOf<{ thingId: string }>();
expectTypeOf<RequestOf<'thing.get'>['principal']>().toEqualTypeOf<Principal>();
expectTypeOf<RequestOf<'thing.get'>['tenantId']>().toEqualTypeOf<string>();
expectTypeOf<RequestOf<'thing.ping'>['principal']>().toEqualTypeOf<Principal | null>();
expectTypeOf<RequestOf<'thing.ping'>['tenantId']>().toEqualTypeOf<null>();
expectTypeOf<RequestOf<'thing.ping'>['body']>().toEqualTypeOf<{ note: string }>();

apiHandler(
  routes,
  {
    // @ts-expect-error a result that drifts from the route's response schema
    'thing.get': async () => ({ id: 'x', count: 'one' }),
    'thing.ping': async () => undefined,
  },
  { tenants },
);

apiHandler(
  routes,
  {
    // @ts-expect-error a reply.json carrying a result of another shape
    'thing.get': async () => reply.json({ id: 'x' }),
    'thing.ping': async () => undefined,
  },
  { tenants },
);

apiHandler(
  routes,
  {
    'thing.get': async () => ({ id: 'x', count: 1 }),
    // @ts-expect-error a 204 route answers nothing
    'thing.ping': async () => ({ ok: true }),
  },
  { tenants },
);

// @ts-expect-error a route of the table without its handler
apiHandler(routes, { 'thing.get': async () => ({ id: 'x', count: 1 }) }, { tenants });

apiHandler(
  routes,
  {
    'thing.get': async () => ({ id: 'x', count: 1 }),
    'thing.ping': async () => undefined,
    // @ts-expect-error a handler for a route the table does not have
    'thing.gone': async () => undefined,
  },
  { tenants },
);

apiHandler(
  routes,
  {
    'thing.get': async () => ({ id: 'x', count: 1 }),
    // @ts-expect-error an open route's principal may be null: it cannot be used as a signed-in caller
    'thing.ping': async ({ principal }) => void principal.userId,
  },
  { tenants },
);

apiHandler(
  routes,
  {
    // @ts-expect-error a path parameter the route does not declare
    'thing.get': async ({ params }) => ({ id: params.otherId, count: 1 }),
    'thing.ping': async () => undefined,
  },
  { tenants },
);

const keyRoutes = defineRoutes([
  {
    id: 'thing.model',
    method: 'POST',
    path: '/v1/things',
    group: 'llm-gateway',
    auth: { kind: 'gatewayKey' },
    scope: scope.tenant(),
    summary: 'Called with a gateway key',
    status: 200,
  },
]);
declare const gatewayKey: CredentialResolvers['gatewayKey'];

apiHandler(keyRoutes, { 'thing.model': async () => ({}) }, { credentials: { gatewayKey } });

// @ts-expect-error a table naming an area credential needs its resolver
apiHandler(keyRoutes, { 'thing.model': async () => ({}) });

// @ts-expect-error the resolver of another credential does not do
apiHandler(keyRoutes, { 'thing.model': async () => ({}) }, { credentials: { widgetSession: { read: () => null } } });
