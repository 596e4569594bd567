import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { methodNotAllowed, routeNotFound } from '../../shared/http/errors.ts';
import { errorToHttp } from '../../shared/http/responses.ts';
import { createRouteMatcher } from '../../shared/http/route-matcher.ts';
import { deployedRoutes } from '../../shared/routes/index.ts';

const match = createRouteMatcher(deployedRoutes());

/**
 * The HTTP API's `$default` route: anything API Gateway did not match lands here and is answered
 * in the envelope, 405 when the path exists under another method, else 404.
 */
export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const outcome = match(event.requestContext.http.method, event.rawPath);
  if (outcome.kind === 'method-not-allowed') return errorToHttp(methodNotAllowed(outcome.allowed));
  return errorToHttp(routeNotFound());
};
