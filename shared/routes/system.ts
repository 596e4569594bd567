import { z } from 'zod/mini';
import { defineRoutes } from './types.ts';

export const systemRoutes = defineRoutes([
  {
    id: 'system.health',
    method: 'GET',
    path: '/api/health',
    group: 'system',
    auth: { kind: 'none' },
    summary: 'Liveness check',
    status: 200,
    response: z.object({ status: z.literal('ok') }),
  },
  {
    id: 'system.jwks',
    method: 'GET',
    path: '/.well-known/jwks.json',
    group: 'system',
    auth: { kind: 'none' },
    summary: 'Public keys that verify access tokens (JWK set, not enveloped)',
    status: 200,
    rawResponse: { contentType: 'application/json' },
  },
]);
