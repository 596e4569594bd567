import { localRoutes } from '#local/providers/routes.ts';
import { reply } from '#shared/http/responses.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';

import { channelCalls, clearChannelCalls, standIn, type StandInRequest } from '../channels.ts';
import { activityToken, botConnectorKeys, openIdMetadata } from '../teams-issuer.ts';
import { authorize, callbackPage, discovery, jwks, token } from './idp.ts';
import { checkoutPage, decline, pay, renew, webhookLog } from './payments.ts';

/** Local-only stand-ins for external providers (never deployed). */
type Ctx = { headers: Record<string, string | undefined>; rawBody?: string; isBase64Encoded: boolean; rawPath: string };
const standInRequest = (ctx: Ctx): StandInRequest => ({
  path: ctx.rawPath,
  headers: ctx.headers,
  rawBody: ctx.rawBody,
  isBase64Encoded: ctx.isBase64Encoded,
});

export const handler = apiHandler(localRoutes, {
  'local.idp.discovery': async ({ params }) => discovery(params.idp),
  'local.idp.authorize': async ({ params, query }) => authorize(params.idp, query),
  'local.idp.token': async ({ params, rawBody, isBase64Encoded, headers }) =>
    token(params.idp, { rawBody, isBase64Encoded, headers }),
  'local.idp.jwks': async ({ params }) => jwks(params.idp),
  'local.oauth.callback': async ({ query }) => callbackPage(query),
  'local.checkout.page': async ({ params }) => checkoutPage(params.sessionId),
  'local.checkout.pay': async ({ params }) => await pay(params.sessionId),
  'local.checkout.decline': async ({ params }) => await decline(params.sessionId),
  'local.providerA.renew': async ({ params }) => await renew(params.subscriptionId, true),
  'local.providerA.failRenewal': async ({ params }) => await renew(params.subscriptionId, false),
  'local.webhooks.log': async () => await webhookLog(),
  'local.channels.slack': async (ctx) => standIn({ channel: 'slack' }, standInRequest(ctx)),
  'local.channels.telegram': async (ctx) =>
    standIn({ channel: 'telegram', botPath: ctx.params.botPath }, standInRequest(ctx)),
  'local.channels.whatsapp': async (ctx) => standIn({ channel: 'whatsapp' }, standInRequest(ctx)),
  'local.channels.discord.message': async (ctx) =>
    standIn({ channel: 'discord', target: ctx.params.channelId, followUp: false }, standInRequest(ctx)),
  'local.channels.discord.followUp': async (ctx) =>
    standIn({ channel: 'discord', target: ctx.params.interactionToken, followUp: true }, standInRequest(ctx)),
  'local.channels.discord.command': async (ctx) =>
    standIn({ channel: 'discord', command: ctx.params.applicationId }, standInRequest(ctx)),
  'local.channels.teams.send': async (ctx) =>
    standIn({ channel: 'teams', conversation: ctx.params.conversationId }, standInRequest(ctx)),
  'local.channels.teams.reply': async (ctx) =>
    standIn({ channel: 'teams', conversation: ctx.params.conversationId }, standInRequest(ctx)),
  'local.channels.teams.serviceSend': async (ctx) =>
    standIn({ channel: 'teams', conversation: ctx.params.conversationId }, standInRequest(ctx)),
  'local.channels.teams.serviceReply': async (ctx) =>
    standIn({ channel: 'teams', conversation: ctx.params.conversationId }, standInRequest(ctx)),
  'local.channels.teams.token': async (ctx) => standIn({ channel: 'teams', login: true }, standInRequest(ctx)),
  'local.channels.teams.openid': async ({ headers }) => openIdMetadata(headers.host),
  'local.channels.teams.keys': async () => botConnectorKeys(),
  'local.channels.teams.activityToken': async ({ body }) => activityToken(body),
  'local.channels.list': async ({ query }) =>
    reply.raw(
      'application/json',
      JSON.stringify(channelCalls().filter((c) => !query.channel || c.channel === query.channel)),
      { headers: { 'cache-control': 'no-store' } },
    ),
  'local.channels.clear': async () => {
    await clearChannelCalls();
  },
});
