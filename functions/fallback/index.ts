import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { methodNotAllowed, routeNotFound } from '#shared/http/errors.ts';
import { errorToHttp } from '#shared/http/responses.ts';
import { createShapeMatcher } from '#shared/http/route-shapes.ts';
import { DEPLOYED_ROUTE_KEYS } from '#api/route-keys.generated.ts';

const methodsFor = createShapeMatcher(DEPLOYED_ROUTE_KEYS);

/**
 * The HTTP API's `$default` route: anything API Gateway did not match lands here and is answered
 * in the envelope, 405 when the path exists under another method, else 404.
 */
export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const allowed = methodsFor(event.rawPath).filter((m) => m !== event.requestContext.http.method);
  return errorToHttp(allowed.length ? methodNotAllowed([...new Set(allowed)]) : routeNotFound());
};
