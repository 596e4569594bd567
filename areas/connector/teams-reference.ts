import { writeItem } from '#shared/data/write-one.ts';
import { createHash } from 'node:crypto';
import { orConflict, putItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { conflict } from '#shared/http/errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { jsonObject, obj, str, type TeamsConversationReference } from '#areas/channels/for-connector.ts';
import { teamsReferenceKey } from './records.ts';

/**
 * A Teams bot may write first only into a conversation the Bot Connector told it about: every
 * authenticated activity of a bot-mode connection (a message, or the `conversationUpdate` Teams sends
 * when someone installs the bot) leaves its conversation reference, by the user for a personal chat
 * and by the conversation id for a group chat or channel, so a proactive message to that user (or
 * conversation) goes where the Bot Connector will take it. The newest activity's reference wins:
 * Teams may move a tenant to another serviceUrl.
 */
const TTL_SECONDS = 400 * 86_400;
/** An unchanged reference is written again at most this often, only to push its expiry on. */
const REFRESH_AFTER_MS = 86_400_000;
/** Longer than any Bot Framework id or service URL: such an activity leaves no reference. */
const MAX = { url: 512, id: 512, name: 200, type: 32 } as const;

const bounded = (v: unknown, max: number) => {
  const s = str(v);
  return s && s.length <= max ? s : undefined;
};
const named = (v: unknown) => str(v)?.slice(0, MAX.name);

function serviceUrlOf(v: unknown): string | undefined {
  const s = bounded(v, MAX.url);
  if (!s) return undefined;
  try {
    return ['https:', 'http:'].includes(new URL(s).protocol) ? s : undefined;
  } catch {
    return undefined;
  }
}

/** Where the activity's reference is kept and what it holds; null when it teaches nothing (or is the bot's own). */
export function referenceOf(rawBody: string): { address: string; reference: TeamsConversationReference } | null {
  const activity = jsonObject(rawBody);
  if (!activity) return null;
  const from = obj(activity.from);
  const bot = obj(activity.recipient);
  const conversation = obj(activity.conversation);
  const serviceUrl = serviceUrlOf(activity.serviceUrl);
  const userId = bounded(from.id, MAX.id);
  const botId = bounded(bot.id, MAX.id);
  const conversationId = bounded(conversation.id, MAX.id);
  if (!serviceUrl || !userId || !botId || !conversationId) return null;
  if (from.role === 'bot' || userId === botId) return null;
  const aadObjectId = bounded(from.aadObjectId, MAX.id);
  const conversationType = bounded(conversation.conversationType, MAX.type);
  const azureTenantId =
    bounded(conversation.tenantId, MAX.id) ?? bounded(obj(obj(activity.channelData).tenant).id, MAX.id);
  const personal = conversationType ? conversationType === 'personal' : conversation.isGroup !== true;
  const reference: TeamsConversationReference = {
    serviceUrl,
    channelId: bounded(activity.channelId, MAX.type) ?? 'msteams',
    conversation: {
      id: conversationId,
      ...(conversationType ? { conversationType } : {}),
      ...(azureTenantId ? { tenantId: azureTenantId } : {}),
    },
    bot: { id: botId, ...(named(bot.name) ? { name: named(bot.name) } : {}) },
    user: {
      id: userId,
      ...(named(from.name) ? { name: named(from.name) } : {}),
      ...(aadObjectId ? { aadObjectId } : {}),
    },
  };
  // The user as a turn names them (its sender): the Entra object id when Teams gives one.
  return { address: personal ? (aadObjectId ?? userId) : conversationId, reference };
}

/**
 * Keeps the activity's reference. Written only when it changed (or a day after it was last written,
 * for its expiry): a chat's every message does not rewrite it. Never throws: a reference not kept
 * costs a later proactive message, not this activity's turn.
 */
export async function rememberTeamsReference(tenantId: string, channelId: string, rawBody: string) {
  const found = referenceOf(rawBody);
  if (!found) return;
  const fingerprint = createHash('sha256').update(JSON.stringify(found.reference)).digest('hex');
  const now = Date.now();
  const unchanged = conflict('The conversation reference is unchanged');
  try {
    await writeItem(
      orConflict(
        putItem(
          {
            ...teamsReferenceKey(tenantId, channelId, found.address),
            reference: found.reference,
            fingerprint,
            storedAt: new Date(now).toISOString(),
            ttl: Math.floor(now / 1000) + TTL_SECONDS,
          },
          'attribute_not_exists(pk) OR fingerprint <> :fingerprint OR storedAt < :refresh',
          { ':fingerprint': fingerprint, ':refresh': new Date(now - REFRESH_AFTER_MS).toISOString() },
        ),
        unchanged,
      ),
    );
  } catch (err) {
    if (err !== unchanged) logger.warn('teams conversation reference not kept', { channelId, error: err as Error });
  }
}

/** The reference a proactive message to `recipient` (a Teams user, or a group or channel conversation) goes through. */
export async function teamsReference(
  tenantId: string,
  channelId: string,
  recipient: string,
): Promise<TeamsConversationReference | null> {
  const found = await get<{ reference?: TeamsConversationReference }>(
    teamsReferenceKey(tenantId, channelId, recipient),
    { consistent: true },
  );
  return found?.reference ?? null;
}
