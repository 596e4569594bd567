import { verificationKeys } from '../../shared/auth/signing-keys.ts';
import { ok, raw } from '../../shared/http/responses.ts';
import { systemRoutes } from '../../shared/routes/system.ts';
import { apiHandler } from '../../shared/runtime/api-handler.ts';
import { docsAsset, docsInit, docsPage } from './docs.ts';

let openApiJson: Promise<string> | undefined;

/** The whole route table and the generator load on the first request for the document, not at cold start. */
function openApi(): Promise<string> {
  if (!openApiJson) {
    openApiJson = import('../../shared/openapi/api-document.ts').then(({ apiDocument }) => JSON.stringify(apiDocument()));
    openApiJson.catch(() => (openApiJson = undefined));
  }
  return openApiJson;
}

export const handler = apiHandler(systemRoutes, {
  'system.health': async () => ok({ status: 'ok' }),
  'system.jwks': async () =>
    raw('application/json', JSON.stringify((await verificationKeys()).jwks), {
      headers: { 'cache-control': 'public, max-age=300' },
    }),
  'system.openapi': async () => raw('application/json', await openApi(), { headers: { 'cache-control': 'public, max-age=60' } }),
  'system.docs': async () => docsPage(),
  'system.docsInit': async () => docsInit(),
  'system.docsStyle': async (req) => docsAsset('swagger-ui.css', req.headers['accept-encoding']),
  'system.docsBundle': async (req) => docsAsset('swagger-ui-bundle.js', req.headers['accept-encoding']),
});
