import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { gatewayKeyCredential } from '#areas/llm-gateway/key-auth.ts';
import { putModel } from '#areas/llm-gateway/catalog.ts';
import { createKey, listKeys, revokeKey } from '#areas/llm-gateway/gateway-keys.ts';
import { toModelAnswer, type Caller } from '#areas/llm-gateway/records.ts';
import { usage } from '#areas/llm-gateway/usage.ts';
import { chatCompletions, embeddings, modelList, modelOne, type WireChatBody } from '#areas/llm-gateway/wire.ts';
import { responses } from '#areas/llm-gateway/responses.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { reply } from '#shared/http/responses.ts';
import { llmGatewayRoutes } from '#areas/llm-gateway/routes.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import type { GatewayKeyRef } from '#shared/runtime/credentials.ts';
import { streamFrontDoor } from '#shared/runtime/stream.ts';

/** Who calls a /v1 route: the gateway key that authenticated it, else the signed-in user. */
const callerOf = (key: GatewayKeyRef | null, principal: Principal | null): Caller =>
  key ? { kind: 'key', keyId: key.keyId } : { kind: 'user', userId: principal!.userId };

/** Wiring only: the gateway's logic is areas/llm-gateway. */
export const handler = apiHandler(
  llmGatewayRoutes,
  {
    'llmGateway.chatCompletions': ({ tenantId, gatewayKey, principal, requestId, body }) =>
      chatCompletions({ tenantId, caller: callerOf(gatewayKey, principal), requestId }, body as WireChatBody),
    'llmGateway.embeddings': ({ tenantId, gatewayKey, principal, requestId, body }) =>
      embeddings({ tenantId, caller: callerOf(gatewayKey, principal), requestId }, body),
    'llmGateway.responses': ({ tenantId, gatewayKey, principal, requestId, body }) =>
      responses({ tenantId, caller: callerOf(gatewayKey, principal), requestId }, body),
    'llmGateway.models': ({ tenantId, gatewayKey, requestId }) =>
      modelList({ tenantId, keyId: gatewayKey?.keyId ?? null, requestId }),
    'llmGateway.model': ({ tenantId, gatewayKey, requestId, params }) =>
      modelOne({ tenantId, keyId: gatewayKey?.keyId ?? null, requestId }, params.model),
    'llmGateway.keys.list': ({ tenantId, query }) => listKeys(tenantId, query),
    'llmGateway.keys.create': ({ tenantId, body, principal }) => createKey(tenantId, body, principal),
    'llmGateway.keys.revoke': ({ tenantId, params, principal }) => revokeKey(tenantId, params.keyId, principal),
    'llmGateway.usage': ({ tenantId, query }) => usage(tenantId, query),
    'llmGateway.models.put': async ({ params, body, principal }) => {
      const { model, created } = await putModel(params.modelId, body, principal);
      return reply.json(toModelAnswer(model), { status: created ? 201 : 200 });
    },
  },
  { tenants: tenantDirectory, credentials: { gatewayKey: gatewayKeyCredential } },
);

/** The streaming front door (a function URL in response-stream mode): the /v1 routes. */
export const streamHandler = streamFrontDoor(handler, llmGatewayRoutes);
