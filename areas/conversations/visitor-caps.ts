import { countAgentEvent } from '#areas/analytics/for-conversations.ts';
import { orConflict, updateItem, type Write } from '#shared/data/commit.ts';
import { keyId, type Key } from '#shared/data/keys.ts';
import { getMany } from '#shared/data/read.ts';
import { logger } from '#shared/runtime/logger.ts';
import { channelSpend, widgetSpend, type ConversationRecord } from './records.ts';

/**
 * What anonymous traffic spent, checked before a turn and added after it (docs/decisions/
 * conversations.md, "Visitor caps"). A widget's token caps are held before the turn (cap-holds.ts)
 * and its session's turn cap checked in the write that takes the conversation's turn, so neither is
 * passed by parallel messages; a channel person's turns run one at a time (their queue group).
 */
export type CapKind = 'dailyTokens' | 'visitorTokens' | 'sessionTurns' | 'userDailyTokens';

const KEEP_SECONDS = 3 * 86_400;

export const secondsUntil = (at: number, now = Date.now()) => Math.max(1, Math.ceil((at - now) / 1000));
/** Seconds until the next UTC midnight, when the daily caps start again. */
export const untilNextDay = (now: number) => secondsUntil(now - (now % 86_400_000) + 86_400_000, now);

async function spent(list: Key[]) {
  const found = await getMany<{ tokens?: number }>(list);
  return list.map((k) => found.get(keyId(k))?.tokens ?? 0);
}
const over = (used: number, cap: number | null) => cap !== null && used >= cap;

/** Whether the channel user has spent the connection's daily cap. */
export async function channelCapReached(c: ConversationRecord, cap: number | null, now = Date.now()) {
  if (cap === null) return false;
  const [used] = await spent([channelSpend(c, now)]);
  return over(used!, cap);
}

// `committed` is settled tokens plus running turns' holds (cap-holds.ts): every spend adds to both.
const add = (key: Key, tokens: number, now: number) =>
  updateItem(key, { ttl: Math.floor(now / 1000) + KEEP_SECONDS }, { add: { tokens, committed: tokens } });

export const channelSpendWrites = (c: ConversationRecord, tokens: number, now = Date.now()): Write[] =>
  tokens > 0 ? [add(channelSpend(c, now), tokens, now)] : [];

/**
 * A turn resumed by a staff decision spends for the visitor who started it: the widget's day and
 * the session (the request that resumes it is staff's, so no visitor address is at hand), or the
 * channel user's day.
 */
export function resumedSpendWrites(c: ConversationRecord, tokens: number, now = Date.now()): Write[] {
  if (tokens <= 0) return [];
  if (c.channelId) return channelSpendWrites(c, tokens, now);
  if (!c.widgetId) return [];
  const k = widgetSpend(c, '', now);
  return [add(k.widget, tokens, now), add(k.session, tokens, now)];
}

/** Marks the person told of the cap today; fails (409) when they were, so they are told once a day. */
export const capNoticeWrite = (c: ConversationRecord, now = Date.now()): Write =>
  orConflict(
    updateItem(
      channelSpend(c, now),
      { notified: true, ttl: Math.floor(now / 1000) + KEEP_SECONDS },
      { condition: 'attribute_not_exists(notified)' },
    ),
    'NOTIFIED',
  );

/** Counted for the agent's stats; a failed count never changes what the visitor hears. */
export async function countCapReached(tenantId: string, agentId: string, cap: CapKind) {
  await countAgentEvent(tenantId, agentId, `cap_${cap}`).catch((err: Error) =>
    logger.warn('cap not counted', { tenantId, agentId, cap, error: err }),
  );
}
