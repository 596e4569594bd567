import type { AgentSnapshot } from '#areas/agents/for-conversations.ts';
import {
  checkGuard,
  variantCounterWrite,
  variantForConversation,
  type ConversationVariant,
  type VariantCounters,
} from '#areas/prompts/for-conversations.ts';
import type { Write } from '#shared/data/commit.ts';
import type { ConversationRecord, MessageRecord } from './records.ts';

/**
 * A/B tests of the agent's prompt (docs/decisions/prompts.md, "A/B tests"): a new conversation's
 * variant is decided once at its start and stored on it; every turn renders that variant's version;
 * its counters move in the conversation's own writes, so each is counted exactly once.
 */
export async function startVariant(tenantId: string, agent: AgentSnapshot, conversationId: string) {
  const variant = await variantForConversation(tenantId, agent.promptId, conversationId);
  return {
    abVariant: variant,
    writes: variant ? [variantCounterWrite(tenantId, variant, { conversations: 1 })] : [],
  };
}

/** The snapshot a turn runs: the pinned one, with the prompt version of the conversation's variant. */
export const servedBy = (agent: AgentSnapshot, c: Pick<ConversationRecord, 'abVariant'>): AgentSnapshot =>
  c.abVariant && c.abVariant.promptId === agent.promptId
    ? { ...agent, promptVersionId: c.abVariant.promptVersionId }
    : agent;

/** What one conversation write moves of its variant's counters: escalation, tokens, and the close. */
export function variantMoves(
  current: ConversationRecord,
  next: ConversationRecord,
  messages: readonly MessageRecord[],
) {
  const v = next.abVariant;
  if (!v) return { writes: [] as Write[], check: null };
  const closing = next.status === 'Closed' && current.status !== 'Closed';
  const escalating = next.escalated && !current.escalated;
  const add: VariantCounters = {
    tokens: messages.reduce((n, m) => n + (m.tokens || 0), 0),
    escalated: escalating ? 1 : 0,
    ...(closing
      ? {
          closed: 1,
          resolved: next.resolved ? 1 : 0,
          csatSum: next.csat ?? 0,
          csatCount: next.csat === null ? 0 : 1,
        }
      : {}),
  };
  const moved = Object.values(add).some((n) => n);
  return {
    writes: moved ? [variantCounterWrite(next.tenantId, v, add)] : [],
    check: escalating || closing ? v : null,
  };
}

/** The guard looks at the counters once they moved (it never fails the conversation's write). */
export const afterVariantMoves = (tenantId: string, v: ConversationVariant | null) =>
  v ? checkGuard(tenantId, v) : Promise.resolve();
