import {
  channelById,
  DISCORD_DEFERRED,
  DISCORD_PONG,
  jsonObject,
  parseInbound,
  verifyBotConnector,
  verifyDiscord,
  verifySlack,
  verifyTeams,
  verifyTelegram,
  verifyWhatsApp,
  whatsAppSubscription,
  type ChannelRecord,
  type ChannelType,
  type InboundEvent,
  type InboundHeaders,
} from '#areas/channels/for-connector.ts';
import { requireAgents } from '#areas/identity/for-connector.ts';
import { publishedAgent } from '#areas/agents/for-connector.ts';
import { resolveTenantSecret } from '#areas/vault/for-connector.ts';
import { safeParse } from 'zod/mini';
import { outsideIdKeyPart } from '#shared/data/keys.ts';
import { ApiError, notFound } from '#shared/http/errors.ts';
import { invalidSignature, invalidVerifyToken, invalidWebhookBody, staleEvent } from './errors.ts';
import { reply, type RawReply } from '#shared/http/responses.ts';
import { logger } from '#shared/runtime/logger.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { CHANNEL_TURN } from './queue.ts';
import { applyReceipt } from './receipts.ts';
import { rememberTeamsReference } from './teams-reference.ts';
import { claimInbound, REPLAY_WINDOW_SECONDS, releaseInbound } from './inbound-claims.ts';

/**
 * The chat platforms' inbound webhooks (spec "AI connector" routes 5-9). In this order: the
 * connection (by its id alone: two GetItems), the signature over the raw body with the connection's
 * own secret (resolved from its tenant's namespace), then the events. Nothing is written before the
 * signature holds. Each message is claimed by the platform's event id (providers retry) and its
 * turn queued, so the answer leaves within the platform's deadline (Slack: 3 s); the agent's answer
 * goes out through the channel's sender from the turn worker.
 */
export interface WebhookRequest {
  rawBody: string | undefined;
  isBase64Encoded: boolean;
  headers: InboundHeaders;
}

/** The credential each platform signs with: a tenant secret, except Discord's public key (a setting). */
const SIGNING: Record<ChannelType, { secret: string } | { setting: string }> = {
  slack: { secret: 'signing-secret' },
  teams: { secret: 'security-token' },
  whatsapp: { secret: 'app-secret' },
  telegram: { secret: 'secret-token' },
  discord: { setting: 'publicKey' },
};

const VERIFY: Record<ChannelType, (body: string, headers: InboundHeaders, secret: string) => boolean> = {
  slack: (b, h, s) => verifySlack(b, h, s),
  teams: verifyTeams,
  whatsapp: verifyWhatsApp,
  telegram: verifyTelegram,
  discord: verifyDiscord,
};

async function connectionOf(type: ChannelType, channelId: string) {
  const found = await channelById(channelId);
  // Another platform's connection id is no connection of this one.
  if (!found || found.connection.type !== type) throw notFound('Channel connection');
  return found;
}

async function secretOf(tenantId: string, c: ChannelRecord, credential: string): Promise<string | null> {
  const ref = c.secretRefs[credential];
  if (!ref) return null;
  try {
    return await resolveTenantSecret(tenantId, ref);
  } catch (err) {
    // A reference outside the tenant's namespace verifies nothing.
    if (err instanceof ApiError && err.status === 403) return null;
    throw err;
  }
}

const bodyText = (r: WebhookRequest) =>
  r.rawBody === undefined ? '' : r.isBase64Encoded ? Buffer.from(r.rawBody, 'base64').toString('utf8') : r.rawBody;

const json = (value: unknown) =>
  reply.raw('application/json; charset=utf-8', JSON.stringify(value), { headers: { 'cache-control': 'no-store' } });

/** The request is the platform's: its signature over the body, or for a Teams bot the Bot Connector's JWT. */
async function authentic(type: ChannelType, tenantId: string, c: ChannelRecord, body: string, headers: InboundHeaders) {
  if (type === 'teams' && c.settings.mode === 'bot') {
    const activity = jsonObject(body);
    return verifyBotConnector(headers.authorization, c.settings.appId ?? '', {
      serviceUrl: typeof activity?.serviceUrl === 'string' ? activity.serviceUrl : undefined,
      channelId: typeof activity?.channelId === 'string' ? activity.channelId : undefined,
    });
  }
  const signing = SIGNING[type];
  const secret = 'secret' in signing ? await secretOf(tenantId, c, signing.secret) : c.settings[signing.setting];
  return !!secret && VERIFY[type](body, headers, secret);
}

export async function receiveWebhook(type: ChannelType, channelId: string, req: WebhookRequest): Promise<RawReply> {
  const { tenantId, connection } = await connectionOf(type, channelId);
  const body = bodyText(req);
  if (!(await authentic(type, tenantId, connection, body, req.headers))) throw invalidSignature();
  const events = parseInbound(type, body);
  if (!events) throw invalidWebhookBody();
  if (events.some(stale)) throw staleEvent();
  if (type === 'teams' && connection.settings.mode === 'bot')
    await rememberTeamsReference(tenantId, connection.id, body);
  for (const e of events) {
    if (e.kind === 'challenge') return json({ challenge: e.challenge });
    if (e.kind === 'ping') return json(DISCORD_PONG);
  }
  for (const e of events) if (e.kind === 'receipt' && e.receipt) await applyReceipt(tenantId, connection.id, e.receipt);
  const outcomes: Outcome[] = [];
  for (const e of events) if (e.kind === 'message') outcomes.push(await accept(tenantId, connection, e));
  if (type === 'discord') {
    // Discord needs an interaction answer within 3 s, whatever the interaction: "thinking…" while the
    // turn runs (its answer is a follow-up on the interaction), else a note only the person sees.
    return json(outcomes[0] === 'queued' || outcomes[0] === 'duplicate' ? DISCORD_DEFERRED : DISCORD_UNAVAILABLE);
  }
  return json({ ok: true });
}

type Outcome = 'queued' | 'duplicate' | 'no-turn' | 'not-a-turn';

/** A message the platform dates before the replay window (Slack and Discord are held to their signed timestamp instead). */
const stale = (e: InboundEvent) =>
  e.kind === 'message' && e.sentAt !== undefined && Date.now() / 1000 - e.sentAt > REPLAY_WINDOW_SECONDS;

/** An immediate, ephemeral (flags 64) channel message: the interaction is answered, no turn runs. */
const DISCORD_UNAVAILABLE = {
  type: 4,
  data: { content: 'The assistant is not available right now.', flags: 64 },
} as const;

/**
 * One person's message: their last-inbound time (WhatsApp's window) and the event's claim in one
 * write, then the turn queued. A claimed event (a provider's retry) is not queued again. An inactive
 * connection, a plan without agents or an unpublished agent still answers 200 (the platform would
 * only retry) but runs no turn, and gives the claim back.
 */
async function accept(tenantId: string, c: ChannelRecord, e: InboundEvent): Promise<Outcome> {
  if (!e.eventId || !e.sender || !e.replyTo) return 'not-a-turn';
  const now = new Date();
  const turn = {
    tenantId,
    channelId: c.id,
    // The claim's form of the id: the turn's own keys (its queue claim, the message's idempotency key) stay bounded.
    eventId: outsideIdKeyPart(e.eventId),
    sender: e.sender,
    ...(e.senderName ? { senderName: e.senderName.slice(0, 200) } : {}),
    text: e.text.slice(0, 40_000),
    replyTo: e.replyTo,
    receivedAt: now.toISOString(),
  };
  if (!safeParse(CHANNEL_TURN.schema(), turn).success) {
    // A sender or reply address longer than any platform's ids: the turn worker could not take it.
    logger.info('channel message not answered', { channelId: c.id, reason: "ids beyond the platforms' lengths" });
    return 'not-a-turn';
  }
  const claim = {
    tenantId,
    channelId: c.id,
    eventId: turn.eventId,
    ...(e.messageId ? { messageId: outsideIdKeyPart(e.messageId) } : {}),
  };
  if (!(await claimInbound(claim, e.sender, now))) return 'duplicate';
  const skip = await whyNoTurn(tenantId, c);
  if (skip) {
    logger.info('channel message not answered', { channelId: c.id, reason: skip });
    // Not taken: a redelivery once the connection or agent can answer is taken then.
    await releaseInbound(claim).catch(() => undefined);
    return 'no-turn';
  }
  try {
    // One acceptance, one queue id: a message given back and redelivered is queued anew.
    await enqueue(
      CHANNEL_TURN,
      { ...turn, ...(claim.messageId ? { messageId: claim.messageId } : {}) },
      {
        id: `turn:${c.id}:${turn.eventId}:${now.getTime()}`,
      },
    );
  } catch (err) {
    // Not queued: the claims go, so the provider's retry of this event is taken.
    await releaseInbound(claim).catch(() => undefined);
    throw err;
  }
  return 'queued';
}

async function whyNoTurn(tenantId: string, c: ChannelRecord): Promise<string | null> {
  if (!c.isActive) return 'connection inactive';
  try {
    await requireAgents(tenantId);
    await publishedAgent(tenantId, c.agentId);
  } catch (err) {
    if (err instanceof ApiError && err.status < 500) return err.code;
    throw err;
  }
  return null;
}

/** WhatsApp's GET subscription handshake: the challenge back as plain text when the verify token matches. */
export async function whatsAppHandshake(channelId: string, query: Record<string, string | undefined>) {
  const { tenantId, connection } = await connectionOf('whatsapp', channelId);
  const token = await secretOf(tenantId, connection, 'verify-token');
  const answer = whatsAppSubscription(query, token ?? '');
  if (!answer.ok) throw invalidVerifyToken();
  return reply.raw('text/plain; charset=utf-8', answer.challenge, { headers: { 'cache-control': 'no-store' } });
}
