import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { toolRoutes } from '#areas/tools/routes.ts';
import { tenantAgents } from '#areas/agents/directory.ts';
import { TENANT_AGENTS } from '#areas/tools/queries.ts';
import { answer } from '#shared/data/queries.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { toConfig, toDetail, toParams } from '#areas/tools/records.ts';
import {
  createTool,
  deleteTool,
  getTool,
  listBuiltIn,
  listTools,
  moveTool,
  putConfig,
  putParams,
  updateTool,
} from '#areas/tools/tools.ts';
import { listServerTools, refreshServerTools } from '#areas/tools/mcp-tools.ts';

/** Wiring only: each route's tenant comes resolved from its declared scope (areas/tools/routes.ts). */
export const handler = apiHandler(
  toolRoutes,
  {
    'tools.list': ({ tenantId, query }) => listTools(tenantId, query),
    'tools.create': ({ tenantId, body, principal }) => createTool(tenantId, body, principal),
    'tools.builtIn': async ({ query }) => listBuiltIn(query),
    'tools.builtIn.select': ({ tenantId, body, principal }) =>
      createTool(tenantId, { baseToolId: body.baseToolId }, principal),
    'tools.get': async ({ tenantId, params }) => toDetail(await getTool(tenantId, params.toolId)),
    'tools.update': ({ tenantId, params, body, principal }) => updateTool(tenantId, params.toolId, body, principal),
    'tools.delete': ({ tenantId, params, principal }) => deleteTool(tenantId, params.toolId, principal),
    'tools.config.get': async ({ tenantId, params }) => toConfig(await getTool(tenantId, params.toolId)),
    'tools.config.put': ({ tenantId, params, body, principal }) => putConfig(tenantId, params.toolId, body, principal),
    'tools.params.get': async ({ tenantId, params }) => toParams(await getTool(tenantId, params.toolId)),
    'tools.params.put': ({ tenantId, params, body, principal }) => putParams(tenantId, params.toolId, body, principal),
    'tools.mcp.tools': ({ tenantId, params }) => listServerTools(tenantId, params.toolId),
    'tools.mcp.refresh': ({ tenantId, params, principal }) => refreshServerTools(tenantId, params.toolId, principal),
    'tools.approve': ({ tenantId, params, principal }) => moveTool(tenantId, params.toolId, 'approve', principal),
    'tools.activate': ({ tenantId, params, principal }) => moveTool(tenantId, params.toolId, 'activate', principal),
    'tools.reject': ({ tenantId, params, principal }) => moveTool(tenantId, params.toolId, 'reject', principal),
  },
  { tenants: tenantDirectory, wiring: [answer(TENANT_AGENTS, tenantAgents)] },
);
