import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { playgroundTurn } from '#areas/agents/playground.ts';
import { agentRuntimeRoutes } from '#areas/agents/routes/agent-runtime.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';

/**
 * The agent runtime's own function: long-running, with network egress and the grants its tools
 * need, which the agents' CRUD function must not have (docs/architecture.md, "Agents").
 */
export const handler = apiHandler(
  agentRuntimeRoutes,
  {
    'agents.chat': ({ tenantId, params, body, principal, requestId }) =>
      playgroundTurn(tenantId, params.agentId, body, principal, requestId),
  },
  { tenants: tenantDirectory },
);
