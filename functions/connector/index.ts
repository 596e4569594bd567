import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { cancelProactive, createProactive, getProactive, listProactive } from '#areas/connector/proactive.ts';
import { receiveWebhook, whatsAppHandshake } from '#areas/connector/webhook.ts';
import { connectorRoutes } from '#areas/connector/routes.ts';
import { registerDiscordCommands } from '#areas/connector/discord-commands.ts';
import { deleteTemplate, listTemplates, registerTemplate } from '#areas/connector/templates.ts';
import { reply } from '#shared/http/responses.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';

/** Wiring only: the logic is areas/connector. */
export const handler = apiHandler(
  connectorRoutes,
  {
    'connector.proactive.create': ({ tenantId, body, principal }) => createProactive(tenantId, body, principal),
    'connector.proactive.list': ({ tenantId, query }) => listProactive(tenantId, query),
    'connector.proactive.get': ({ tenantId, params }) => getProactive(tenantId, params.messageId),
    'connector.proactive.cancel': async ({ tenantId, params, principal }) => {
      await cancelProactive(tenantId, params.messageId, principal);
      return reply.empty(204);
    },
    'connector.templates.create': ({ tenantId, params, body, principal }) =>
      registerTemplate(tenantId, params.channelId, body, principal),
    'connector.templates.list': ({ tenantId, params, query }) => listTemplates(tenantId, params.channelId, query),
    'connector.templates.delete': async ({ tenantId, params, principal }) => {
      await deleteTemplate(tenantId, params.channelId, params.templateId, principal);
      return reply.empty(204);
    },
    'connector.discord.commands': ({ tenantId, params, principal }) =>
      registerDiscordCommands(tenantId, params.channelId, principal),
    'connector.webhooks.slack': ({ params, ...req }) => receiveWebhook('slack', params.channelId, req),
    'connector.webhooks.teams': ({ params, ...req }) => receiveWebhook('teams', params.channelId, req),
    'connector.webhooks.whatsappVerify': ({ params, query }) => whatsAppHandshake(params.channelId, query),
    'connector.webhooks.whatsapp': ({ params, ...req }) => receiveWebhook('whatsapp', params.channelId, req),
    'connector.webhooks.telegram': ({ params, ...req }) => receiveWebhook('telegram', params.channelId, req),
    'connector.webhooks.discord': ({ params, ...req }) => receiveWebhook('discord', params.channelId, req),
  },
  { tenants: tenantDirectory },
);
