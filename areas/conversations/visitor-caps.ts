import { countAgentEvent } from '#areas/analytics/for-conversations.ts';
import { orConflict, updateItem, type Write } from '#shared/data/commit.ts';
import type { Key } from '#shared/data/keys.ts';
import { logger } from '#shared/runtime/logger.ts';
import { channelSpend, widgetSpend, type ConversationRecord } from './records.ts';

/**
 * What anonymous traffic spent, checked before a turn and added after it (docs/decisions/
 * conversations.md, "Visitor caps"). Token caps are held before the turn (cap-holds.ts) and a
 * session's turn cap checked in the write that takes the conversation's turn, so neither is passed
 * by parallel messages.
 */
export type CapKind = 'dailyTokens' | 'visitorTokens' | 'sessionTurns' | 'userDailyTokens';

const KEEP_SECONDS = 3 * 86_400;

export const secondsUntil = (at: number, now = Date.now()) => Math.max(1, Math.ceil((at - now) / 1000));
/** Seconds until the next UTC midnight, when the daily caps start again. */
export const untilNextDay = (now: number) => secondsUntil(now - (now % 86_400_000) + 86_400_000, now);

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
