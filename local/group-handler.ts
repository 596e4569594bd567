import type { ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';

export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2>;
/** A group's streaming front door (shared/runtime/stream.ts): it writes the answer to the response itself. */
export type StreamHandler = (event: APIGatewayProxyEventV2, sink: ServerResponse, context: Context) => Promise<void>;

interface GroupModule {
  handler: HttpHandler;
  streamHandler?: StreamHandler;
}

const importGroup = async (group: string): Promise<GroupModule> =>
  (group === 'local-providers'
    ? await import('./providers/index.ts')
    : await import(`../functions/${group}/index.ts`)) as GroupModule;

/**
 * A group's Lambda handler module: `functions/<group>/index.ts`, except the local-only stand-ins for
 * external providers, which live under `local/` so no deployed bundle can import them.
 */
export async function loadGroupHandler(group: string): Promise<HttpHandler> {
  return (await importGroup(group)).handler;
}

/** The group's streaming front door; a group with `stream` routes must export one (`streamHandler`). */
export async function loadGroupStreamHandler(group: string): Promise<StreamHandler> {
  const { streamHandler } = await importGroup(group);
  if (!streamHandler) throw new Error(`functions/${group}/index.ts serves stream routes but exports no streamHandler`);
  return streamHandler;
}
