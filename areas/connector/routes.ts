import * as z from 'zod/mini';
import { CHANNEL_TYPES } from '#areas/channels/for-connector.ts';
import { DELIVERY_STATUSES, PROACTIVE_STATUSES } from '#areas/connector/records.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { isoDateTime, pageOf, paging, text, uuid } from '#shared/routes/schemas.ts';
import { featureNotInPlan } from '#areas/identity/for-connector.ts';
import {
  channelInactive,
  commandsNotSupported,
  invalidSignature,
  invalidVerifyToken,
  invalidWebhookBody,
  messageNotCancellable,
  noConversationReference,
  platformRefused,
  proactiveNotSupported,
  staleEvent,
  templatesNotSupported,
  windowClosed,
} from '#areas/connector/errors.ts';
import { conflict, notFound } from '#shared/http/errors.ts';

/**
 * AI connector (spec 03-ai-runtime.md "AI connector"): proactive messages, and the chat platforms'
 * webhooks. A webhook is public (the platform calls it) and verified by the handler with the
 * platform's own scheme over the raw body and the connection's secret; its answer is the platform's
 * wire format (Slack's challenge, Discord's PONG), so it is raw JSON rather than the envelope.
 */
const read = { kind: 'bearer', permission: 'conversations:read' } as const;
const write = { kind: 'bearer', permission: 'conversations:write' } as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));
const ofMessage = scope.tenant({
  tenantFrom: 'query',
  record: { param: 'messageId', collection: 'PROACTIVE_MESSAGE', label: 'Proactive message' },
});

/** A scheduled message goes within a year; further out is a mistake more often than a plan. */
const MAX_AHEAD_MS = 366 * 86_400_000;

/** Meta's template names: lowercase letters, digits and underscores; languages as Meta lists them (en, en_US, pt_BR). */
const templateName = () => z.string().check(z.regex(/^[a-z0-9_]{1,512}$/, 'Lowercase letters, digits and _'));
const templateLanguage = () =>
  z.string().check(z.regex(/^[a-z]{2,3}(_[A-Za-z0-9]{2,4})?$/, 'A language code as Meta lists it (en, en_US)'));
/** Meta allows a template body a few dozen variables; each a short text. */
const MAX_TEMPLATE_PARAMETERS = 100;

const templateUse = once(() =>
  z.object({
    name: templateName(),
    language: templateLanguage(),
    parameters: z.array(text(1024)).check(z.maxLength(MAX_TEMPLATE_PARAMETERS)),
  }),
);

const proactiveMessage = once(() =>
  z.object({
    id: z.string(),
    channelId: z.string(),
    channelType: z.enum(CHANNEL_TYPES),
    recipient: z.string(),
    text: z.nullable(z.string()),
    template: z.nullable(z.object({ name: z.string(), language: z.string(), parameters: z.array(z.string()) })),
    /** How it went or will go: free text, or the template (outside WhatsApp's window). Null until sent. */
    sentAs: z.nullable(z.enum(['text', 'template'])),
    status: z.enum(PROACTIVE_STATUSES),
    error: z.nullable(z.string()),
    deliveryStatus: z.nullable(z.enum(DELIVERY_STATUSES)),
    deliveryError: z.nullable(z.string()),
    scheduledAt: z.nullable(z.string()),
    sentAt: z.nullable(z.string()),
    createdAt: z.string(),
  }),
);

const channelParams = once(() => z.object({ channelId: uuid() }));
/** A connection's configuration is the agents' managers' (as the connection itself is). */
const manage = { kind: 'bearer', roles: ['TenantOwner'], permission: 'ai:manage' } as const;
const readChannels = { kind: 'bearer', permission: 'ai:read' } as const;
const ofChannel = scope.tenant({
  tenantFrom: 'query',
  record: { param: 'channelId', collection: 'CHANNEL', label: 'Channel connection' },
});
const template = once(() =>
  z.object({
    id: z.string(),
    channelId: z.string(),
    name: z.string(),
    language: z.string(),
    parameterCount: z.number(),
    createdAt: z.string(),
  }),
);
/** Slack, Meta and Discord bodies are small; a WhatsApp notification may batch several messages. */
const WEBHOOK_BODY_BYTES = 256 * 1024;

/** The headers each platform signs with: a request without them is 400 INVALID_SIGNATURE. */
const SIGNED_WITH: Record<(typeof CHANNEL_TYPES)[number], Record<string, string>> = {
  slack: {
    'X-Slack-Signature': 'v0=<hex HMAC-SHA256 of "v0:<timestamp>:<raw body>"> with the signing secret',
    'X-Slack-Request-Timestamp': 'Seconds since the epoch, within 5 minutes',
  },
  teams: {
    Authorization:
      "Outgoing-webhook mode: HMAC <base64 HMAC-SHA256 of the raw body>, keyed with the decoded security token; bot mode: Bearer <the Bot Connector's JWT> (audience the bot's app id)",
  },
  whatsapp: { 'X-Hub-Signature-256': 'sha256=<hex HMAC-SHA256 of the raw body> with the app secret' },
  telegram: { 'X-Telegram-Bot-Api-Secret-Token': "The connection's secret token" },
  discord: {
    'X-Signature-Ed25519': "Ed25519 signature of timestamp + raw body, with the application's public key",
    'X-Signature-Timestamp': 'The signed timestamp',
  },
};

const webhook = (type: (typeof CHANNEL_TYPES)[number], how: string) =>
  ({
    headers: Object.entries(SIGNED_WITH[type]).map(([name, description]) => ({ name, description, required: true })),
    id: `connector.webhooks.${type}`,
    method: 'POST',
    path: `/api/webhooks/${type}/{channelId}`,
    group: 'connector',
    auth: { kind: 'signature', provider: type },
    scope: scope.public,
    summary: `${how} Verified over the raw body with the connection's own secret (bad or missing: 400 INVALID_SIGNATURE, nothing stored); each message deduplicated by the platform's id (a message the platform dates more than 8 days ago: 400 STALE_EVENT) and its agent turn queued, the answer sent through the channel`,
    status: 200,
    bodyType: 'raw',
    maxBodyBytes: WEBHOOK_BODY_BYTES,
    rawResponse: { contentType: 'application/json' },
    errors: [invalidSignature, invalidWebhookBody, staleEvent],
    schemas: () => ({ params: channelParams() }),
  }) as const;

export const connectorRoutes = defineRoutes([
  {
    id: 'connector.proactive.create',
    method: 'POST',
    path: '/api/proactive-messages',
    group: 'connector',
    auth: write,
    scope: scope.tenant({ tenantFrom: 'body' }),
    summary:
      "Send a message first, now (Queued) or at `scheduledAt` (Scheduled), to a person on one of the tenant's channel connections. WhatsApp: free `text` within 24 hours of their last message; outside it the registered `template` named (parameters checked against its registration), else 409 WINDOW_CLOSED. Teams: only a connection in bot mode (else 409 PROACTIVE_NOT_SUPPORTED), to a user (Entra object id) or group/channel conversation the bot has heard from, through the conversation reference their activity left (else 409 NO_CONVERSATION_REFERENCE)",
    status: 202,
    errors: [notFound, featureNotInPlan, channelInactive, windowClosed, proactiveNotSupported, noConversationReference],
    schemas: () => ({
      body: z
        .object({
          channelId: uuid(),
          recipient: text(512),
          text: z.optional(text(4000)),
          template: z.optional(templateUse()),
          scheduledAt: z.optional(
            z.nullable(
              isoDateTime().check(z.refine((v) => Date.parse(v) <= Date.now() + MAX_AHEAD_MS, 'At most a year ahead')),
            ),
          ),
          tenantId: z.optional(uuid()),
        })
        .check(
          z.refine((b) => b.text !== undefined || b.template !== undefined, {
            message: 'Give text, a template, or both',
            path: ['text'],
          }),
        ),
      response: proactiveMessage(),
    }),
  },
  {
    id: 'connector.proactive.list',
    method: 'GET',
    path: '/api/proactive-messages',
    group: 'connector',
    auth: read,
    scope: scope.tenant({ tenantFrom: 'query' }),
    summary: 'Proactive messages, newest first; status and channel filter',
    status: 200,
    schemas: () => ({
      query: z.object({
        ...tenantQuery(),
        ...paging(),
        status: z.optional(z.enum(PROACTIVE_STATUSES)),
        channelId: z.optional(uuid()),
      }),
      response: pageOf(proactiveMessage()),
    }),
  },
  {
    id: 'connector.proactive.get',
    method: 'GET',
    path: '/api/proactive-messages/{messageId}',
    group: 'connector',
    auth: read,
    scope: ofMessage,
    summary: "A proactive message with its status (Failed ones carry the platform's error)",
    status: 200,
    schemas: () => ({
      params: z.object({ messageId: uuid() }),
      query: z.object(tenantQuery()),
      response: proactiveMessage(),
    }),
  },
  {
    id: 'connector.proactive.cancel',
    method: 'DELETE',
    path: '/api/proactive-messages/{messageId}',
    group: 'connector',
    auth: write,
    scope: ofMessage,
    summary: 'Cancel a Scheduled or Queued message; 409 MESSAGE_NOT_CANCELLABLE once it is Sent, Failed or Cancelled',
    status: 204,
    errors: [messageNotCancellable],
    schemas: () => ({
      params: z.object({ messageId: uuid() }),
      query: z.object(tenantQuery()),
    }),
  },
  {
    id: 'connector.templates.create',
    method: 'POST',
    path: '/api/ai/channels/{channelId}/templates',
    group: 'connector',
    auth: manage,
    scope: ofChannel,
    summary:
      'Register a message template the WhatsApp Business account has approved (name, language, number of body parameters); a proactive message outside the 24-hour window goes as one. 409 CONFLICT when the name and language are registered, 409 TEMPLATES_NOT_SUPPORTED on another platform',
    status: 201,
    errors: [templatesNotSupported, conflict],
    schemas: () => ({
      params: channelParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        name: templateName(),
        language: templateLanguage(),
        parameterCount: z.int().check(z.minimum(0), z.maximum(MAX_TEMPLATE_PARAMETERS)),
      }),
      response: template(),
    }),
  },
  {
    id: 'connector.templates.list',
    method: 'GET',
    path: '/api/ai/channels/{channelId}/templates',
    group: 'connector',
    auth: readChannels,
    scope: ofChannel,
    summary: "The connection's registered WhatsApp templates, newest first",
    status: 200,
    errors: [templatesNotSupported],
    schemas: () => ({
      params: channelParams(),
      query: z.object({ ...tenantQuery(), ...paging() }),
      response: pageOf(template()),
    }),
  },
  {
    id: 'connector.templates.delete',
    method: 'DELETE',
    path: '/api/ai/channels/{channelId}/templates/{templateId}',
    group: 'connector',
    auth: manage,
    scope: ofChannel,
    summary: 'Forget a registered template; proactive messages already queued with it still go',
    status: 204,
    errors: [templatesNotSupported],
    schemas: () => ({
      params: z.object({ channelId: uuid(), templateId: uuid() }),
      query: z.object(tenantQuery()),
    }),
  },
  {
    id: 'connector.discord.commands',
    method: 'POST',
    path: '/api/ai/channels/{channelId}/discord/commands',
    group: 'connector',
    auth: manage,
    scope: ofChannel,
    summary:
      "Register the `/ask question:` slash command for a Discord connection's application (Discord's interactions endpoint receives commands, not channel messages); registering again overwrites it. 409 COMMANDS_NOT_SUPPORTED on another platform, 409 CONFLICT without the bot token, 502 PLATFORM_REFUSED when Discord refuses",
    status: 200,
    errors: [commandsNotSupported, conflict, platformRefused],
    schemas: () => ({
      params: channelParams(),
      query: z.object(tenantQuery()),
      response: z.object({
        commandId: z.string(),
        name: z.string(),
        applicationId: z.string(),
        registeredAt: z.string(),
      }),
    }),
  },
  webhook(
    'slack',
    'Slack Events API (`X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<timestamp>:<raw body>">` with the signing secret, `X-Slack-Request-Timestamp` within 5 minutes); `url_verification` answered with its challenge.',
  ),
  webhook(
    'teams',
    "A Bot Framework activity from Teams. Outgoing-webhook mode: `Authorization: HMAC <base64 HMAC-SHA256 of the raw body>` keyed with the base64-decoded security token. Bot mode: `Authorization: Bearer <JWT>` signed by a Bot Connector key (issuer https://api.botframework.com, audience the bot's app id, serviceUrl claim equal to the activity's); the activity's conversation reference is kept for proactive messages.",
  ),
  {
    id: 'connector.webhooks.whatsappVerify',
    method: 'GET',
    path: '/api/webhooks/whatsapp/{channelId}',
    group: 'connector',
    auth: { kind: 'signature', provider: 'whatsapp' },
    scope: scope.public,
    summary:
      "WhatsApp's subscription handshake: `hub.mode=subscribe`, the connection's `hub.verify_token` and `hub.challenge`; answers the challenge as plain text (a wrong or missing token, or a mode other than subscribe: 403 INVALID_VERIFY_TOKEN, as Meta expects)",
    status: 200,
    rawResponse: { contentType: 'text/plain' },
    errors: [invalidVerifyToken],
    schemas: () => ({
      params: channelParams(),
      query: z.object({
        'hub.mode': z.optional(z.string().check(z.maxLength(32))),
        'hub.verify_token': z.optional(z.string().check(z.maxLength(512))),
        'hub.challenge': z.optional(z.string().check(z.maxLength(256))),
      }),
    }),
  },
  webhook(
    'whatsapp',
    'WhatsApp Cloud API notification (`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>` with the app secret).',
  ),
  webhook(
    'telegram',
    "Telegram Update (`X-Telegram-Bot-Api-Secret-Token` equal to the connection's secret token; `update_id` is the dedupe key).",
  ),
  webhook(
    'discord',
    "Discord interaction (`X-Signature-Ed25519` over `X-Signature-Timestamp` + raw body with the application's public key, the timestamp within 5 minutes); PING answered with type 1, a command with type 5 (deferred) while the turn runs.",
  ),
]);
