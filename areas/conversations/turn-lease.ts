import { setTimeout as sleep } from 'node:timers/promises';
import { conversationBusy } from './errors.ts';
import type { ConversationRecord } from './records.ts';
import { mutate, readConversation, type Stored } from './store.ts';

/**
 * One agent turn at a time per conversation (docs/decisions/conversations.md, "One turn at a time"):
 * the visitor's message is stored together with the conversation's turn lease, and the answer (or the
 * failure note) gives it back in the same write, so a conversation's transcript is message, answer,
 * message, answer in the order the turns took the lease, and every turn reads the ones before it.
 * A message that arrives while another turn runs waits for it; the lease outlives any live turn, so
 * only a turn that died loses it, at its expiry.
 */
export const TURN_LEASE = {
  /** As long as a turn's idempotency claim (turn.ts): a retry and a waiting message give a dead turn the same time. */
  leaseMs: 150_000,
  /** How long a message waits for the turn before it: then 409 CONVERSATION_BUSY (a channel's queue retries it). */
  waitMs: 60_000,
  firstWaitMs: 25,
  maxWaitMs: 1_000,
};

/** Another turn holds the conversation: its plan was not applied (internal: the wait catches it). */
const busy = new Error('the conversation is answering another message');

/** Throws (from inside a plan) while another live turn holds the conversation. */
export function requireFreeTurn(c: ConversationRecord, now = Date.now()) {
  if (c.turnLease && c.turnLease.until > now) throw busy;
}

export const takeTurn = (lease: string, now = Date.now()): Pick<ConversationRecord, 'turnLease'> => ({
  turnLease: { id: lease, until: now + TURN_LEASE.leaseMs },
});

/** The conversation without this turn's lease (another turn's, taken after this one's expired, stays). */
export const giveBackTurn = (c: ConversationRecord, lease: string): Pick<ConversationRecord, 'turnLease'> => ({
  turnLease: c.turnLease?.id === lease ? null : (c.turnLease ?? null),
});

/**
 * Runs `attempt` (a write whose plan calls `requireFreeTurn`) until the conversation's turn is free,
 * reading the conversation again after each wait (jittered, doubling up to a second).
 */
export async function whenTurnFree<T>(first: Stored, attempt: (current: Stored) => Promise<T>): Promise<T> {
  const deadline = Date.now() + TURN_LEASE.waitMs;
  let current = first;
  for (let wait = TURN_LEASE.firstWaitMs; ; wait = Math.min(TURN_LEASE.maxWaitMs, wait * 2)) {
    try {
      return await attempt(current);
    } catch (err) {
      if (err !== busy) throw err;
      if (Date.now() + wait > deadline) throw conversationBusy();
    }
    await sleep(wait / 2 + Math.random() * wait);
    current = await readConversation(first.tenantId, first.id, true);
  }
}

/** The conversation's turn taken on its own, once it is free (a retried message's, a resumed turn's). */
export const takeConversationTurn = (first: Stored, lease: string, admit?: (c: ConversationRecord) => void) =>
  whenTurnFree(first, async (c) => {
    const out = await mutate(
      c.tenantId,
      c.id,
      (current) => {
        requireFreeTurn(current);
        admit?.(current);
        return { next: { ...current, ...takeTurn(lease) } };
      },
      c,
    );
    return out.conversation;
  });
