import * as z from 'zod/mini';
import { defineRoutes, scope } from '#shared/routes/types.ts';

const none = { kind: 'none' } as const;

export const systemRoutes = defineRoutes([
  {
    id: 'system.health',
    method: 'GET',
    path: '/api/health',
    group: 'system',
    auth: none,
    summary: 'Liveness check',
    scope: scope.public,
    status: 200,
    schemas: () => ({
      response: z.object({ status: z.literal('ok') }),
    }),
  },
  {
    id: 'system.healthStream',
    method: 'GET',
    path: '/api/health/stream',
    group: 'system',
    auth: none,
    summary:
      'Liveness as server-sent events: `count` `tick` events 250 ms apart, then `done`. Served by the streaming front door (events arrive one by one); through the HTTP API the same events arrive at once',
    status: 200,
    scope: scope.public,
    transport: 'stream',
    rawResponse: { contentType: 'text/event-stream' },
    schemas: () => ({
      events: z.union([
        z
          .object({ n: z.number(), status: z.literal('ok'), at: z.string() })
          .check(z.meta({ description: '`event: tick`, one per tick' })),
        z.object({ count: z.number() }).check(z.meta({ description: '`event: done`, last' })),
      ]),
      query: z.object({
        count: z._default(
          z.pipe(
            z.string().check(z.regex(/^\d{1,2}$/, 'Expected a whole number')),
            z.pipe(
              z.transform((v: string) => Number(v)),
              z.number().check(z.int(), z.minimum(1), z.maximum(10)),
            ),
          ),
          3,
        ),
      }),
    }),
  },
  {
    id: 'system.jwks',
    method: 'GET',
    path: '/.well-known/jwks.json',
    group: 'system',
    auth: none,
    summary: 'Public keys that verify access tokens (JWK set, not enveloped)',
    scope: scope.public,
    status: 200,
    rawResponse: { contentType: 'application/json' },
  },
  {
    id: 'system.openapi',
    method: 'GET',
    path: '/api/openapi.json',
    group: 'system',
    auth: none,
    summary: 'This OpenAPI 3.1 document, generated from the route table (not enveloped)',
    scope: scope.public,
    status: 200,
    rawResponse: { contentType: 'application/json' },
  },
  {
    id: 'system.docs',
    method: 'GET',
    path: '/api/docs',
    group: 'system',
    auth: none,
    summary: 'Interactive API reference (HTML page; its script and style sheet are served below)',
    scope: scope.public,
    status: 200,
    rawResponse: { contentType: 'text/html; charset=utf-8' },
  },
  {
    id: 'system.docsFile',
    method: 'GET',
    path: '/api/docs/{file}',
    group: 'system',
    auth: none,
    summary:
      "A file of the API reference page: `swagger-ui.css` (its style sheet), `swagger-ui-bundle.js` (Swagger UI) or `docs.js` (the script that starts it); any other name is 404. One route for the three, as each route is one of the HTTP API's 300",
    scope: scope.public,
    status: 200,
    rawResponse: { contentType: ['text/css; charset=utf-8', 'text/javascript; charset=utf-8'] },
    schemas: () => ({ params: z.object({ file: z.string().check(z.maxLength(64)) }) }),
  },
]);
