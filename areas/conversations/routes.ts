import * as z from 'zod/mini';
import { CONVERSATION_CHANNELS, CONVERSATION_STATUSES, MESSAGE_ROLES } from '#areas/conversations/records.ts';
import { defineRoutes, once, scope, type RateLimitRule } from '#shared/routes/types.ts';
import { email, optionalText, pageOf, paging, searchTerm, text, utcDay, uuid } from '#shared/routes/schemas.ts';
import {
  agentNotPublished,
  agentPromptMissing,
  agentUnavailable,
  TURN_REFUSALS,
} from '#areas/agents/for-conversations.ts';
import {
  conversationClosed,
  feedbackAlreadyGiven,
  invalidIdempotencyKey,
  invalidStatusTransition,
  originNotAllowed,
  requestInProgress,
  conversationBusy,
  widgetLimitReached,
  widgetInactive,
} from '#areas/conversations/errors.ts';
import { featureNotInPlan } from '#areas/identity/for-conversations.ts';
import { unauthorized } from '#shared/http/errors.ts';
import {
  ACTION_STATUSES,
  citationSchema,
  actionAlreadyDecided,
  actionExpired,
  toolNoLongerOnAgent,
} from '#areas/agents/for-conversations.ts';

/** AI conversations (spec 03-ai-runtime.md "AI conversations"): the widget's session routes and the staff inbox. */
const read = { kind: 'bearer', permission: 'conversations:read' } as const;
const write = { kind: 'bearer', permission: 'conversations:write' } as const;
const owner = { kind: 'bearer', roles: ['TenantOwner'] } as const;
const session = { kind: 'widgetSession' } as const;
/** Every widget route counts against one limit per IP (spec "Limits"). */
const WIDGET_LIMIT: RateLimitRule = { name: 'widget', limit: 60, windowSeconds: 60 };
const ofConversation = scope.tenant({
  tenantFrom: 'query',
  record: { param: 'conversationId', collection: 'CONVERSATION', label: 'Conversation' },
});
const ofSession = scope.tenant();
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));
/** A conversation named by its id (a SystemAdmin may add the tenant). */
const byId = once(() => ({ params: z.object({ conversationId: uuid() }), query: z.object(tenantQuery()) }));

const visitorMessage = once(() =>
  z.object({
    id: z.string(),
    role: z.enum(MESSAGE_ROLES),
    text: z.string(),
    citations: z.array(citationSchema()),
    authorName: z.nullable(z.string()),
    createdAt: z.string(),
  }),
);
const message = once(() =>
  z.object({
    id: z.string(),
    role: z.enum(MESSAGE_ROLES),
    text: z.string(),
    citations: z.array(citationSchema()),
    toolCalls: z.array(z.object({ name: z.string(), status: z.enum(['ok', 'error']), durationMs: z.number() })),
    tokens: z.number(),
    createdAt: z.string(),
    /** A message sent on a chat channel: what the platform reported (null for the widget and inbound ones). */
    deliveryStatus: z.nullable(z.enum(['Sent', 'Delivered', 'Read', 'Failed'])),
    deliveryError: z.nullable(z.string()),
  }),
);
const visitor = once(() => z.nullable(z.object({ name: z.nullable(z.string()), email: z.nullable(z.string()) })));
const conversationListItem = once(() =>
  z.object({
    id: z.string(),
    agentId: z.string(),
    agentName: z.string(),
    channel: z.enum(CONVERSATION_CHANNELS),
    status: z.enum(CONVERSATION_STATUSES),
    visitor: visitor(),
    messageCount: z.number(),
    escalationReason: z.nullable(z.string()),
    csat: z.nullable(z.number()),
    startedAt: z.string(),
    lastMessageAt: z.string(),
    closedAt: z.nullable(z.string()),
    lastMessage: z.nullable(z.object({ role: z.enum(MESSAGE_ROLES), text: z.string(), createdAt: z.string() })),
    unread: z.boolean(),
  }),
);
const settings = once(() =>
  z.object({ escalationEmails: z.nullable(z.array(z.string())), updatedAt: z.nullable(z.string()) }),
);
const conversationState = once(() =>
  z.object({
    conversationId: z.string(),
    status: z.enum(CONVERSATION_STATUSES),
    escalationReason: z.nullable(z.string()),
    csat: z.nullable(z.number()),
  }),
);
const action = once(() =>
  z.object({
    id: z.string(),
    tool: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    reason: z.nullable(z.string()),
    requestedBy: z.nullable(z.string()),
    status: z.enum(ACTION_STATUSES),
    requestedAt: z.string(),
    expiresAt: z.string(),
    decidedBy: z.nullable(z.object({ userId: z.string(), email: z.nullable(z.string()) })),
    decidedAt: z.nullable(z.string()),
    rejectReason: z.nullable(z.string()),
    result: z.nullable(z.string()),
    note: z.nullable(z.string()).check(
      z.meta({
        description: 'Why an Expired action ended without running when not by time: its tool left the agent',
      }),
    ),
  }),
);
const byAction = once(() => ({
  params: z.object({ conversationId: uuid(), actionId: uuid() }),
  query: z.object(tenantQuery()),
}));
/** Idempotency-Key: the widget's id for one message, so a retried send is stored and answered once. */
const IDEMPOTENCY = 'Idempotency-Key';

/** A visitor message's answer: the JSON result, and the streamed form's final event. */
const widgetAnswer = once(() =>
  z.object({
    message: z.nullable(visitorMessage()),
    citations: z.array(citationSchema()),
    escalated: z.boolean(),
    awaitingApproval: z.boolean(),
  }),
);

export const conversationRoutes = defineRoutes([
  {
    group: 'conversations',
    id: 'conversations.widget.start',
    method: 'POST',
    path: '/api/conversations/widget/sessions',
    auth: { kind: 'none' },
    scope: scope.public,
    transport: 'stream',
    rateLimit: WIDGET_LIMIT,
    summary:
      "Widget session: the widget's public key from one of its allowed origins (`Origin` header) starts a conversation with its published agent; the session token (shown once) goes in `X-Widget-Session` afterwards",
    status: 201,
    errors: [unauthorized, originNotAllowed, featureNotInPlan, widgetInactive, agentNotPublished],
    schemas: () => ({
      body: z.object({
        widgetKey: z.string().check(z.minLength(1), z.maxLength(100)),
        visitor: z.optional(z.nullable(z.object({ name: optionalText(200), email: z.optional(z.nullable(email())) }))),
        locale: z.optional(
          z.nullable(z.string().check(z.regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/, 'Expected a language tag'))),
        ),
      }),
      response: z.object({
        conversationId: z.string(),
        sessionToken: z.string(),
        expiresAt: z.string(),
        agent: z.object({ name: z.string(), welcomeMessage: z.nullable(z.string()) }),
        theme: z.object({ primaryColor: z.string(), position: z.enum(['left', 'right']), title: z.string() }),
      }),
    }),
  },
  {
    group: 'conversations',
    id: 'conversations.widget.send',
    eventStream:
      'with `Accept: text/event-stream`: `{"delta"}` events, the final `{message, citations, escalated}`, then `[DONE]`',
    headers: [
      {
        name: IDEMPOTENCY,
        description: "The widget's id for this message: a retried send is stored and answered once",
        pattern: '^[A-Za-z0-9_.:-]{1,100}$',
      },
    ],
    method: 'POST',
    path: '/api/conversations/widget/messages',
    auth: session,
    scope: ofSession,
    transport: 'stream',
    rateLimit: WIDGET_LIMIT,
    summary: `A visitor message and the agent's answer with its citations (\`escalated\` when a person has the conversation; the agent then stays silent and \`message\` is null; \`awaitingApproval\` when the answer says a person will confirm an action first, whose outcome arrives later by the poll). With \`Accept: text/event-stream\` the answer streams: \`{"delta"}\` events, then the final \`{message, citations, escalated}\`, then \`[DONE]\`. An \`${IDEMPOTENCY}\` header makes a retried send store and answer the message once. A cap the widget sets on its visitors answers 429 \`WIDGET_LIMIT_REACHED\`, whose message is written for the visitor to read`,
    status: 200,
    errors: [
      invalidIdempotencyKey,
      conversationClosed,
      requestInProgress,
      conversationBusy,
      agentNotPublished,
      agentPromptMissing,
      agentUnavailable,
      widgetLimitReached,
      ...TURN_REFUSALS,
    ],
    schemas: () => ({
      body: z.object({ text: text(4000) }),
      response: widgetAnswer(),
      events: z.union([
        z.object({ delta: z.string() }).check(z.meta({ description: 'Text of the answer as the model writes it' })),
        widgetAnswer().check(z.meta({ description: 'The stored answer, once, before `[DONE]`' })),
        z
          .object({ error: z.object({ code: z.string(), message: z.string() }) })
          .check(
            z.meta({ description: 'Sent as `event: error` when the turn fails after the stream began; no `[DONE]`' }),
          ),
      ]),
    }),
  },
  {
    group: 'conversations',
    id: 'conversations.widget.messages',
    method: 'GET',
    path: '/api/conversations/widget/messages',
    auth: session,
    scope: ofSession,
    transport: 'stream',
    rateLimit: WIDGET_LIMIT,
    summary:
      "The conversation's messages after `after` (a message id; all when absent), oldest first: the agent's, the visitor's and people's replies",
    status: 200,
    schemas: () => ({
      query: z.object({ after: z.optional(uuid()) }),
      response: z.array(visitorMessage()),
    }),
  },
  {
    group: 'conversations',
    id: 'conversations.widget.escalate',
    method: 'POST',
    path: '/api/conversations/widget/escalate',
    auth: session,
    scope: ofSession,
    transport: 'stream',
    rateLimit: WIDGET_LIMIT,
    summary: 'The visitor asks for a person: the conversation is Escalated with the reason, and the agent falls silent',
    status: 200,
    errors: [conversationClosed, invalidStatusTransition],
    schemas: () => ({
      body: z.object({ reason: optionalText(500) }),
      response: conversationState(),
    }),
  },
  {
    group: 'conversations',
    id: 'conversations.widget.feedback',
    method: 'POST',
    path: '/api/conversations/widget/feedback',
    auth: session,
    scope: ofSession,
    transport: 'stream',
    rateLimit: WIDGET_LIMIT,
    summary: 'The visitor rates the conversation 1-5 (once), which closes it',
    status: 200,
    errors: [feedbackAlreadyGiven, conversationClosed],
    schemas: () => ({
      body: z.object({ csat: z.int().check(z.minimum(1), z.maximum(5)), comment: optionalText(2000) }),
      response: conversationState(),
    }),
  },
  {
    group: 'conversations',
    id: 'conversations.list',
    method: 'GET',
    path: '/api/conversations',
    auth: read,
    scope: scope.tenant({ tenantFrom: 'query' }),
    summary:
      'The inbox: conversations newest first, filtered by agent, status, channel, start dates and text (visitor name or e-mail, agent name, first visitor message)',
    status: 200,
    schemas: () => ({
      query: z
        .object({
          ...paging(),
          ...tenantQuery(),
          agentId: z.optional(uuid()),
          status: z.optional(z.enum(CONVERSATION_STATUSES)),
          channel: z.optional(z.enum(CONVERSATION_CHANNELS)),
          startDate: z.optional(utcDay()),
          endDate: z.optional(utcDay()),
          search: searchTerm(),
        })
        .check(
          z.refine(
            (q) => !q.startDate || !q.endDate || q.startDate <= q.endDate,
            'endDate must not be before startDate',
          ),
        ),
      response: pageOf(conversationListItem()),
    }),
  },
  {
    group: 'conversations',
    id: 'conversations.settings.get',
    method: 'GET',
    path: '/api/conversations/settings',
    auth: read,
    scope: scope.tenant({ tenantFrom: 'query' }),
    summary:
      "The tenant's conversation settings: `escalationEmails` (who is e-mailed when a conversation is escalated; null: the users holding conversations:write)",
    status: 200,
    schemas: () => ({ query: z.object(tenantQuery()), response: settings() }),
  },
  {
    group: 'conversations',
    id: 'conversations.settings.put',
    method: 'PUT',
    path: '/api/conversations/settings',
    auth: write,
    scope: scope.tenant({ tenantFrom: 'query' }),
    summary:
      'Sets who is e-mailed when a conversation is escalated: up to 20 addresses, or null for the users holding conversations:write ([] tells nobody)',
    status: 200,
    schemas: () => ({
      query: z.object(tenantQuery()),
      body: z.object({ escalationEmails: z.nullable(z.array(email()).check(z.maxLength(20))) }),
      response: settings(),
    }),
  },
  {
    group: 'conversations',
    id: 'conversations.get',
    method: 'GET',
    path: '/api/conversations/{conversationId}',
    auth: read,
    scope: ofConversation,
    summary: 'A conversation with every message, its citations and tool calls',
    status: 200,
    schemas: () => ({
      ...byId(),
      response: z.object({
        ...conversationListItem().shape,
        widgetId: z.nullable(z.string()),
        channelId: z.nullable(z.string()),
        locale: z.nullable(z.string()),
        escalated: z.boolean(),
        resolved: z.boolean(),
        csatComment: z.nullable(z.string()),
        messages: z.array(message()),
      }),
    }),
  },
  {
    group: 'conversations',
    id: 'conversations.reply',
    method: 'POST',
    path: '/api/conversations/{conversationId}/messages',
    auth: write,
    scope: ofConversation,
    summary:
      "A person's reply, delivered to the widget (its poll) or the channel; in an Open conversation the person takes over (Escalated), so the agent stays silent",
    status: 201,
    errors: [conversationClosed],
    schemas: () => ({
      ...byId(),
      body: z.object({ text: text(4000) }),
      response: message(),
    }),
  },
  {
    group: 'conversations',
    id: 'conversations.messages',
    method: 'GET',
    path: '/api/conversations/{conversationId}/messages',
    auth: read,
    scope: ofConversation,
    summary:
      'A page of the messages, oldest first, after the message `after` (from the start when absent); `nextAfter` is the `after` of the next page, null at the end',
    status: 200,
    schemas: () => ({
      params: byId().params,
      query: z.object({
        ...tenantQuery(),
        after: z.optional(uuid()),
        pageSize: paging().pageSize,
      }),
      response: z.object({ items: z.array(message()), hasMore: z.boolean(), nextAfter: z.nullable(z.string()) }),
    }),
  },
  {
    group: 'conversations',
    id: 'conversations.handBack',
    method: 'POST',
    path: '/api/conversations/{conversationId}/hand-back',
    auth: write,
    scope: ofConversation,
    summary:
      'Hands an Escalated conversation back to the agent: Open again, the agent answers the next visitor message (its turn limit counts from zero); 409 from any other state',
    status: 200,
    errors: [conversationClosed, invalidStatusTransition],
    schemas: () => ({ ...byId(), response: conversationListItem() }),
  },
  {
    group: 'conversations',
    id: 'conversations.read',
    method: 'POST',
    path: '/api/conversations/{conversationId}/read',
    auth: read,
    scope: ofConversation,
    summary: "Marks what the visitor wrote as read for the tenant's staff (the list's `unread` turns false)",
    status: 200,
    schemas: () => ({ ...byId(), response: conversationListItem() }),
  },
  {
    group: 'conversations',
    id: 'conversations.status',
    method: 'PUT',
    path: '/api/conversations/{conversationId}/status',
    auth: write,
    scope: ofConversation,
    summary:
      'Moves the conversation: Open -> Escalated -> Resolved or Closed, Open -> Resolved or Closed, Resolved -> Closed (409 INVALID_STATUS_TRANSITION otherwise); the same status again changes nothing',
    status: 200,
    errors: [conversationClosed, invalidStatusTransition],
    schemas: () => ({
      ...byId(),
      body: z.object({ status: z.enum(CONVERSATION_STATUSES), reason: optionalText(500) }),
      response: conversationListItem(),
    }),
  },
  {
    group: 'conversations',
    id: 'conversations.transcript',
    method: 'GET',
    path: '/api/conversations/{conversationId}/transcript',
    auth: read,
    scope: ofConversation,
    summary: 'The transcript as a file: JSON (the detail) or Markdown, with its file name and content type',
    status: 200,
    schemas: () => ({
      params: byId().params,
      query: z.object({ ...tenantQuery(), format: z._default(z.enum(['json', 'markdown']), 'json') }),
      response: z.object({
        conversationId: z.string(),
        format: z.enum(['json', 'markdown']),
        fileName: z.string(),
        contentType: z.string(),
        content: z.string(),
      }),
    }),
  },
  {
    group: 'conversations',
    id: 'conversations.actions.list',
    method: 'GET',
    path: '/api/conversations/{conversationId}/actions',
    auth: read,
    scope: ofConversation,
    summary:
      "The agent's held tool calls, newest first (at most 100): tool, arguments, who asked, why the model wants it, status (Pending, Approved, Rejected, Expired, Done), who decided and when, and the tool's result once Done. A Pending call past its expiry is Expired (rejected)",
    status: 200,
    schemas: () => ({ ...byId(), response: z.array(action()) }),
  },
  {
    group: 'conversations',
    id: 'conversations.actions.approve',
    method: 'POST',
    path: '/api/conversations/{conversationId}/actions/{actionId}/approve',
    auth: write,
    scope: ofConversation,
    summary:
      "Approves a Pending call: the tool runs now, once (409 TOOL_NO_LONGER_ON_AGENT, and the call ends without running, when its tool left the agent's published version) (of two racing approvals one runs it, the other answers 409), and the action is Done with its result; when it was the turn's last undecided call the agent goes on and its answer reaches the visitor or the channel",
    status: 200,
    errors: [actionAlreadyDecided, actionExpired, toolNoLongerOnAgent, conversationClosed],
    schemas: () => ({ ...byAction(), response: action() }),
  },
  {
    group: 'conversations',
    id: 'conversations.actions.reject',
    method: 'POST',
    path: '/api/conversations/{conversationId}/actions/{actionId}/reject',
    auth: write,
    scope: ofConversation,
    summary:
      'Rejects a Pending call with an optional reason: the tool does not run; the agent is told (with the reason) and answers the visitor',
    status: 200,
    errors: [actionAlreadyDecided, actionExpired, toolNoLongerOnAgent],
    schemas: () => ({ ...byAction(), body: z.object({ reason: optionalText(500) }), response: action() }),
  },
  {
    group: 'conversations',
    id: 'conversations.delete',
    method: 'DELETE',
    path: '/api/conversations/{conversationId}',
    auth: owner,
    scope: ofConversation,
    summary:
      "Erases the conversation's messages and the conversation (closed first when open, so analytics counts it); what analytics counted stays",
    status: 204,
    schemas: () => ({
      ...byId(),
    }),
  },
]);
