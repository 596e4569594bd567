import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import {
  conversationDetail,
  eraseConversation,
  handBack,
  listConversations,
  markRead,
  messagesPage,
  setStatus,
  staffReply,
  transcript,
} from '#areas/conversations/inbox.ts';
import { conversationActions, decideConversationAction } from '#areas/conversations/actions.ts';
import { readSettings, settingsView, writeSettings } from '#areas/conversations/settings.ts';
import { widgetSend } from '#areas/conversations/widget-send.ts';
import {
  messagesSince,
  openSession,
  startSession,
  visitorEscalates,
  visitorFeedback,
} from '#areas/conversations/widget.ts';
import { conversationRoutes } from '#areas/conversations/routes.ts';
import { widgetSessionCredential } from '#areas/conversations/session.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { streamFrontDoor } from '#shared/runtime/stream.ts';

/** Wiring only: the logic is areas/conversations; widget routes name their conversation by the session. */
export const handler = apiHandler(
  conversationRoutes,
  {
    'conversations.widget.start': ({ body, headers }) => startSession(body, headers.origin ?? headers.Origin),
    'conversations.widget.send': ({ widgetSession, body, headers, requestId, ip }) =>
      widgetSend(widgetSession, body.text, headers, requestId, ip),
    'conversations.widget.messages': async ({ widgetSession, query }) =>
      messagesSince(await openSession(widgetSession), query.after),
    'conversations.widget.escalate': async ({ widgetSession, body }) =>
      visitorEscalates(await openSession(widgetSession, true), body.reason),
    'conversations.widget.feedback': async ({ widgetSession, body }) =>
      visitorFeedback(await openSession(widgetSession, true), body),
    'conversations.list': ({ tenantId, query }) => listConversations(tenantId, query),
    'conversations.settings.get': async ({ tenantId }) => settingsView(await readSettings(tenantId)),
    'conversations.settings.put': ({ tenantId, body, principal }) => writeSettings(tenantId, body, principal),
    'conversations.messages': ({ tenantId, params, query }) => messagesPage(tenantId, params.conversationId, query),
    'conversations.handBack': ({ tenantId, params, principal }) => handBack(tenantId, params.conversationId, principal),
    'conversations.read': ({ tenantId, params, principal }) => markRead(tenantId, params.conversationId, principal),
    'conversations.get': ({ tenantId, params }) => conversationDetail(tenantId, params.conversationId),
    'conversations.reply': ({ tenantId, params, body, principal }) =>
      staffReply(tenantId, params.conversationId, body.text, principal),
    'conversations.status': ({ tenantId, params, body, principal }) =>
      setStatus(tenantId, params.conversationId, body, principal),
    'conversations.transcript': ({ tenantId, params, query }) =>
      transcript(tenantId, params.conversationId, query.format),
    'conversations.actions.list': ({ tenantId, params, requestId }) =>
      conversationActions(tenantId, params.conversationId, requestId),
    'conversations.actions.approve': ({ tenantId, params, principal, requestId }) =>
      decideConversationAction(
        tenantId,
        params.conversationId,
        params.actionId,
        { approve: true },
        principal,
        requestId,
      ),
    'conversations.actions.reject': ({ tenantId, params, body, principal, requestId }) =>
      decideConversationAction(
        tenantId,
        params.conversationId,
        params.actionId,
        { approve: false, reason: body.reason ?? null },
        principal,
        requestId,
      ),
    'conversations.delete': ({ tenantId, params, principal }) =>
      eraseConversation(tenantId, params.conversationId, principal),
  },
  { tenants: tenantDirectory, credentials: { widgetSession: widgetSessionCredential } },
);

/** The streaming front door: the widget routes (answers as server-sent events, any origin the widget allows). */
export const streamHandler = streamFrontDoor(handler, conversationRoutes);
