import type { Principal } from '#shared/auth/access-token.ts';
import { scopeRecord, scopeTenant } from '#shared/auth/tenant-scope.ts';

import { toolRoutes } from '#shared/routes/tools.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import {
  createTool,
  deleteTool,
  getTool,
  listBuiltIn,
  listTools,
  moveTool,
  putConfig,
  putParams,
  toConfig,
  toParams,
  updateTool,
} from './tools.ts';

/** The tenant of a by-id tool route: a SystemAdmin may name the tool by id alone. */
const ofTool = (p: Principal, tenantId: string | undefined, id: string) =>
  scopeRecord(p, tenantId, { collection: 'TOOL', id: id.toLowerCase(), label: 'Tool' });

export const handler = apiHandler(toolRoutes, {
  'tools.list': async ({ principal, query }) => await listTools(await scopeTenant(principal!, query.tenantId), query),
  'tools.create': async ({ principal, body }) => {
    const { tenantId, ...input } = body;
    return await createTool(await scopeTenant(principal!, tenantId, 'body.tenantId'), input, principal!);
  },
  'tools.builtIn': async ({ query }) => listBuiltIn(query),
  'tools.builtIn.select': async ({ principal, body }) =>
    await createTool(
      await scopeTenant(principal!, body.tenantId, 'body.tenantId'),
      { baseToolId: body.baseToolId },
      principal!,
    ),
  'tools.update': async ({ principal, params, query, body }) =>
    await updateTool(
      await ofTool(principal!, query.tenantId, params.toolId),
      params.toolId.toLowerCase(),
      body,
      principal!,
    ),
  'tools.delete': async ({ principal, params, query }) => {
    await deleteTool(await ofTool(principal!, query.tenantId, params.toolId), params.toolId.toLowerCase(), principal!);
  },
  'tools.config.get': async ({ principal, params, query }) =>
    toConfig(await getTool(await ofTool(principal!, query.tenantId, params.toolId), params.toolId.toLowerCase())),
  'tools.config.put': async ({ principal, params, query, body }) =>
    await putConfig(
      await ofTool(principal!, query.tenantId, params.toolId),
      params.toolId.toLowerCase(),
      body,
      principal!,
    ),
  'tools.params.get': async ({ principal, params, query }) =>
    toParams(await getTool(await ofTool(principal!, query.tenantId, params.toolId), params.toolId.toLowerCase())),
  'tools.params.put': async ({ principal, params, query, body }) =>
    await putParams(
      await ofTool(principal!, query.tenantId, params.toolId),
      params.toolId.toLowerCase(),
      body,
      principal!,
    ),
  'tools.approve': async ({ principal, params, query }) =>
    await moveTool(
      await ofTool(principal!, query.tenantId, params.toolId),
      params.toolId.toLowerCase(),
      'approve',
      principal!,
    ),
  'tools.activate': async ({ principal, params, query }) =>
    await moveTool(
      await ofTool(principal!, query.tenantId, params.toolId),
      params.toolId.toLowerCase(),
      'activate',
      principal!,
    ),
  'tools.reject': async ({ principal, params, query }) =>
    await moveTool(
      await ofTool(principal!, query.tenantId, params.toolId),
      params.toolId.toLowerCase(),
      'reject',
      principal!,
    ),
});
