import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { methodNotAllowed, routeNotFound } from '#shared/http/errors.ts';
import { openAiErrorToHttp } from '#shared/http/openai-error.ts';
import { errorToHttp } from '#shared/http/responses.ts';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import type { HttpMethod } from '#shared/routes/types.ts';
import { DEPLOYED_ALIAS_KEYS, DEPLOYED_ROUTE_KEYS } from '#api/route-keys.generated.ts';
import { underV1 } from '#areas/llm-gateway/wire-path.ts';

const routes = createRouteMatcher(
  [...DEPLOYED_ROUTE_KEYS, ...DEPLOYED_ALIAS_KEYS].map((key) => {
    const [method, path] = key.split(' ') as [HttpMethod, string];
    return { method, path };
  }),
);

/**
 * The HTTP API's `$default` route: anything API Gateway did not match lands here and is answered
 * in the envelope (OpenAI's error shape under the gateway's `/v1`), 405 when the path exists under
 * another method (`Allow`: the
 * methods really served there, as the runtime's 405 lists them), else 404.
 */
export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const allowed = routes.methods(event.rawPath).filter((m) => m !== event.requestContext.http.method);
  const error = allowed.length ? methodNotAllowed(allowed) : routeNotFound();
  // An OpenAI client that calls a path the gateway lacks (GET /v1/models/{id}) reads OpenAI's errors only.
  return underV1(event.rawPath) ? openAiErrorToHttp(error, event.requestContext.requestId) : errorToHttp(error);
};
