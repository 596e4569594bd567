import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';

export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2>;

/**
 * A group's Lambda handler module: `functions/<group>/index.ts`, except the local-only stand-ins for
 * external providers, which live under `local/` so no deployed bundle can import them.
 */
export async function loadGroupHandler(group: string): Promise<HttpHandler> {
  const module = (
    group === 'local-providers' ? await import('./providers/index.ts') : await import(`../functions/${group}/index.ts`)
  ) as {
    handler: HttpHandler;
  };
  return module.handler;
}
