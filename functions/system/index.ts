import { verificationKeys } from '../../shared/auth/signing-keys.ts';
import { ok, raw } from '../../shared/http/responses.ts';
import { systemRoutes } from '../../shared/routes/system.ts';
import { apiHandler } from '../../shared/runtime/api-handler.ts';

export const handler = apiHandler(systemRoutes, {
  'system.health': async () => ok({ status: 'ok' }),
  'system.jwks': async () =>
    raw('application/json', JSON.stringify((await verificationKeys()).jwks), {
      headers: { 'cache-control': 'public, max-age=300' },
    }),
});
