import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import {
  createAgent,
  deleteAgent,
  duplicateAgent,
  getAgent,
  listAgents,
  listVersions,
  publishAgent,
  restoreVersion,
  setBases,
  setTools,
  unpublishAgent,
  updateAgent,
} from '#areas/agents/manage-agents.ts';
import {
  createWidget,
  deleteWidget,
  embedSnippet,
  listWidgets,
  rotateWidgetKey,
  updateWidget,
} from '#areas/agents/widgets.ts';
import { createChannel, deleteChannel, listChannels, updateChannel } from '#areas/channels/connections.ts';
import { LIVE_AGENT } from '#areas/channels/queries.ts';
import { isLiveAgent, tenantAgents } from '#areas/agents/directory.ts';
import { TENANT_AGENTS } from '#areas/tools/queries.ts';
import { answer } from '#shared/data/queries.ts';
import { agentStats } from '#areas/agents/stats.ts';
import { widgetScript } from '#areas/agents/widget-script.ts';
import { config } from '#shared/platform/config.ts';
import { tenantModels } from '#areas/agents/models.ts';
import { entitlements } from '#areas/agents/entitlements.ts';
import { aiAgentRoutes } from '#areas/agents/routes/agents.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';

/** Wiring only: the logic is in areas/agents; each route's tenant comes resolved from its declared scope. */
export const handler = apiHandler(
  aiAgentRoutes,
  {
    'ai.entitlements': ({ tenantId }) => entitlements(tenantId),
    'ai.models': () => tenantModels(),
    'ai.agents.list': ({ tenantId, query }) => listAgents(tenantId, query),
    'ai.agents.create': ({ tenantId, body, principal }) => createAgent(tenantId, body, principal),
    'ai.agents.get': ({ tenantId, params }) => getAgent(tenantId, params.agentId),
    'ai.agents.update': ({ tenantId, params, body, principal }) =>
      updateAgent(tenantId, params.agentId, body, principal),
    'ai.agents.delete': ({ tenantId, params, principal }) => deleteAgent(tenantId, params.agentId, principal),
    'ai.agents.publish': ({ tenantId, params, principal }) => publishAgent(tenantId, params.agentId, principal),
    'ai.agents.unpublish': ({ tenantId, params, principal }) => unpublishAgent(tenantId, params.agentId, principal),
    'ai.agents.versions': ({ tenantId, params, query }) => listVersions(tenantId, params.agentId, query),
    'ai.agents.restore': ({ tenantId, params, principal }) =>
      restoreVersion(tenantId, params.agentId, params.versionId, principal),
    'ai.agents.duplicate': ({ tenantId, params, body, principal }) =>
      duplicateAgent(tenantId, params.agentId, body.name, principal),
    'ai.agents.tools': ({ tenantId, params, body, principal }) =>
      setTools(tenantId, params.agentId, body.toolIds, principal),
    'ai.agents.knowledgeBases': ({ tenantId, params, body, principal }) =>
      setBases(tenantId, params.agentId, body.knowledgeBaseIds, principal),
    'ai.widgets.list': ({ tenantId, params }) => listWidgets(tenantId, params.agentId),
    'ai.widgets.create': ({ tenantId, params, body, principal }) =>
      createWidget(tenantId, params.agentId, body, principal),
    'ai.widgets.update': ({ tenantId, params, body, principal }) =>
      updateWidget(tenantId, params.widgetId, body, principal),
    'ai.widgets.delete': ({ tenantId, params, principal }) => deleteWidget(tenantId, params.widgetId, principal),
    'ai.widgets.rotateKey': ({ tenantId, params, principal }) => rotateWidgetKey(tenantId, params.widgetId, principal),
    'ai.widgets.embed': ({ tenantId, params }) =>
      embedSnippet(tenantId, params.widgetId, config.publicBaseUrl, config.widgetApiBase),
    'ai.channels.list': ({ tenantId, query }) => listChannels(tenantId, query),
    'ai.channels.create': ({ tenantId, body, principal }) => createChannel(tenantId, body, principal),
    'ai.channels.update': ({ tenantId, params, body, principal }) =>
      updateChannel(tenantId, params.channelId, body, principal),
    'ai.channels.delete': ({ tenantId, params, principal }) => deleteChannel(tenantId, params.channelId, principal),
    'ai.widgetScript': (req) => widgetScript(req.headers['accept-encoding']),
    'ai.agents.stats': ({ tenantId, params, query }) => agentStats(tenantId, params.agentId, query),
  },
  { tenants: tenantDirectory, wiring: [answer(LIVE_AGENT, isLiveAgent), answer(TENANT_AGENTS, tenantAgents)] },
);
