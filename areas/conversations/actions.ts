import { randomUUID } from 'node:crypto';
import {
  decideAction,
  expireAction,
  listActions,
  overdueActions,
  pauseWrites,
  countRequested,
  resumeTurn,
  toAction,
  type ActionRecord,
  type Decision,
  type Owner,
  type Resumable,
} from '#areas/agents/for-conversations.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { logger } from '#shared/runtime/logger.ts';
import { deliverToChannel } from './delivery.ts';
import { conversationClosed } from './errors.ts';
import { systemMessage, takesMessages } from './lifecycle.ts';
import { newMessage, type ConversationRecord } from './records.ts';
import { mutate, readConversation, type Stored } from './store.ts';
import { requestedBy } from './turn.ts';
import { giveBackTurn, takeConversationTurn } from './turn-lease.ts';
import { resumedSpendWrites } from './visitor-caps.ts';

/**
 * Held tool calls of a conversation (docs/decisions/conversations.md, "Approval"): staff list them,
 * approve or reject each; the last decision of a paused turn resumes it, and its answer reaches the
 * visitor like any other (the widget's poll, or the channel).
 */
const ownerOf = (id: string): Owner => ({ kind: 'conversation', id });

/** The conversation's actions, newest first (at most 100): any past its expiry is expired first. */
export async function conversationActions(tenantId: string, id: string, requestId: string) {
  await readConversation(tenantId, id);
  const actions = await listActions(tenantId, ownerOf(id));
  const now = new Date().toISOString();
  const overdue = actions.filter((a) => a.status === 'Pending' && a.expiresAt <= now);
  for (const a of overdue) await expireAndResume(a, requestId);
  const fresh = overdue.length ? await listActions(tenantId, ownerOf(id)) : actions;
  return fresh.map((a) => toAction(a));
}

/** Approve or reject (audited): 409 when another person decided first or it expired. */
export async function decideConversationAction(
  tenantId: string,
  id: string,
  actionId: string,
  decision: Decision,
  actor: Principal,
  requestId: string,
) {
  const c = await readConversation(tenantId, id, true);
  // A closed conversation has no one to answer: its actions may only be rejected.
  if (decision.approve && !takesMessages(c)) throw conversationClosed();
  const out = await decideAction(tenantId, ownerOf(id), actionId, decision, actor, requestId);
  if (out.resume) await resumeSafely(tenantId, id, out.resume, requestId);
  if (out.refused) throw out.refused;
  return toAction(out.action);
}

async function expireAndResume(a: ActionRecord, requestId: string, now = Date.now()) {
  try {
    const resume = await expireAction(a, now);
    if (resume && a.owner.kind === 'conversation') await resumeSafely(a.tenantId, a.owner.id, resume, requestId);
  } catch (err) {
    // Decided by someone else meanwhile: nothing to expire.
    logger.info('action not expired', { actionId: a.id, error: (err as Error).message });
  }
}

/** The scheduler's sweep: Pending actions past their expiry are Expired, and their turns resume. */
export async function expireOverdueActions(now = Date.now()): Promise<number> {
  const due = await overdueActions(new Date(now).toISOString(), 200);
  for (const a of due) await expireAndResume(a, `sweep:${a.id}`, now);
  return due.length;
}

/** A resumed turn that fails leaves a note in the transcript; the decision itself stands. */
async function resumeSafely(tenantId: string, id: string, resume: Resumable, requestId: string) {
  const lease = randomUUID();
  try {
    await resumeConversationTurn(tenantId, id, resume, requestId, lease);
  } catch (err) {
    logger.error('paused turn not resumed', { conversationId: id, turnId: resume.paused.id, error: err as Error });
    await mutate(tenantId, id, (current) => ({
      next: { ...current, ...giveBackTurn(current, lease) },
      messages: [systemMessage(current, 'The agent could not continue after the decision on its action.', Date.now())],
    })).catch(() => undefined);
  }
}

/**
 * The paused turn run on with its calls' outcomes: the agent's answer stored like a visitor turn's
 * (or a new pause, when the model calls for another action) and delivered on the channel. It is a
 * turn of the conversation like a visitor's: it takes the conversation's turn before the model runs
 * and gives it back with its answer.
 */
async function resumeConversationTurn(
  tenantId: string,
  id: string,
  resume: Resumable,
  requestId: string,
  lease: string,
) {
  const c = await takeConversationTurn(await readConversation(tenantId, id, true), lease);
  const agent = resume.paused.agent;
  const final = await resumeTurn(resume, requestId, { conversationId: id });
  const answer = newMessage(c, 'agent', final.message, {
    citations: final.citations,
    toolCalls: final.toolCalls.map(({ name, status, durationMs }) => ({ name, status, durationMs })),
    tokens: final.usage.totalTokens,
  });
  const held = final.paused ? pauseWrites(tenantId, ownerOf(id), agent, final.paused, requestedBy(c)) : null;
  const out = await mutate(
    tenantId,
    id,
    (current) => {
      if (!takesMessages(current)) throw conversationClosed();
      const next: ConversationRecord = {
        ...current,
        ...giveBackTurn(current, lease),
        lastMessageAt: answer.createdAt,
        untrusted: !!current.untrusted || final.untrusted,
      };
      return {
        next,
        messages: [answer],
        writes: [
          ...resumedSpendWrites(current, final.usage.totalTokens),
          ...(held
            ? [...held.writes, countRequested(tenantId, agent.agentId, held.actions.length, answer.createdAt)]
            : []),
        ],
      };
    },
    c as Stored,
  );
  await deliverToChannel(out.conversation, answer);
}
