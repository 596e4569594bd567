import { keyId, type Key } from '#shared/data/keys.ts';
import { agentDay, usageBudget, usageDay } from './records.ts';
import { bucketAttribute } from './sketch.ts';

/** One LLM call as the gateway reports it. */
export interface LlmCall {
  id: string;
  tenantId: string;
  model: string;
  agentId: string | null;
  tokens: number;
  costUsd: number;
  latencyMs: number;
  isError: boolean;
  timestamp: string;
}

/** One finished support conversation as the conversation area reports it. */
export interface Conversation {
  id: string;
  tenantId: string;
  agentId: string | null;
  startedAt: string;
  durationSeconds: number;
  resolved: boolean;
  escalated: boolean;
  escalationReason: string | null;
  csat: number | null;
}

/** What one record adds to one aggregate item: counters, and agent ids for a string set. */
export interface Contribution {
  key: Key;
  add: Record<string, number>;
  set?: Record<string, string | number>;
  agents?: string[];
}

const UNSPECIFIED_REASON = 'Unspecified';
export const REASON_PREFIX = 'reason:';
export const spendAttribute = (month: string) => `spend_${month.replace('-', '_')}`;

const utcDay = (iso: string) => new Date(iso).toISOString().slice(0, 10);

export function llmContributions(c: LlmCall): Contribution[] {
  const day = utcDay(c.timestamp);
  const counters = {
    requests: 1,
    tokens: c.tokens,
    costUsd: c.costUsd,
    latencySumMs: c.latencyMs,
    errors: c.isError ? 1 : 0,
  };
  return [
    { key: usageDay(c.tenantId, 'LLM_USAGE', day), add: counters, ...(c.agentId ? { agents: [c.agentId] } : {}) },
    {
      key: usageDay(c.tenantId, 'LLM_USAGE', day, c.model),
      add: { ...counters, [bucketAttribute(c.latencyMs)]: 1 },
      set: { model: c.model, day },
    },
    { key: usageBudget(c.tenantId), add: { [spendAttribute(day.slice(0, 7))]: c.costUsd } },
    ...(c.agentId
      ? [{ key: agentDay(c.tenantId, c.agentId, day), add: { tokens: c.tokens, costUsd: c.costUsd } }]
      : []),
  ];
}

export function conversationContributions(c: Conversation): Contribution[] {
  const add: Record<string, number> = {
    conversations: 1,
    resolved: c.resolved ? 1 : 0,
    escalated: c.escalated ? 1 : 0,
    durationSumSeconds: c.durationSeconds,
    [`hour${new Date(c.startedAt).getUTCHours()}`]: 1,
  };
  if (c.csat !== null) Object.assign(add, { csatSum: c.csat, csatCount: 1, [`csat${c.csat}`]: 1 });
  if (c.escalated) add[`${REASON_PREFIX}${c.escalationReason?.trim() || UNSPECIFIED_REASON}`] = 1;
  const day = utcDay(c.startedAt);
  const perAgent = c.agentId
    ? [
        {
          key: agentDay(c.tenantId, c.agentId, day),
          add: {
            conversations: 1,
            resolved: add.resolved!,
            escalated: add.escalated!,
            csatSum: c.csat ?? 0,
            csatCount: c.csat === null ? 0 : 1,
          },
        },
      ]
    : [];
  return [{ key: usageDay(c.tenantId, 'SUPPORT_USAGE', day), add }, ...perAgent];
}

/** Contributions to the same item summed into one update each. */
export function mergeContributions(all: readonly Contribution[]): Contribution[] {
  const byItem = new Map<string, Contribution>();
  for (const c of all) {
    const id = keyId(c.key);
    const into = byItem.get(id);
    if (!into) {
      byItem.set(id, {
        key: c.key,
        add: { ...c.add },
        ...(c.set ? { set: { ...c.set } } : {}),
        ...(c.agents ? { agents: [...c.agents] } : {}),
      });
      continue;
    }
    for (const [attr, n] of Object.entries(c.add)) into.add[attr] = (into.add[attr] ?? 0) + n;
    if (c.agents) into.agents = [...new Set([...(into.agents ?? []), ...c.agents])];
  }
  return [...byItem.values()];
}

export interface Counted<T> {
  marker: Key;
  record: T;
  contributions: Contribution[];
}

/**
 * Splits records into groups whose markers plus the distinct aggregate items they touch fit in
 * one transaction (`limit` items), keeping input order.
 */
export function planChunks<T>(records: readonly Counted<T>[], limit: number): Counted<T>[][] {
  const chunks: Counted<T>[][] = [];
  let current: Counted<T>[] = [];
  let items = new Set<string>();
  for (const r of records) {
    const touched = r.contributions.map((c) => keyId(c.key)).filter((id) => !items.has(id));
    if (current.length && current.length + items.size + 1 + touched.length > limit) {
      chunks.push(current);
      current = [];
      items = new Set();
    }
    current.push(r);
    for (const c of r.contributions) items.add(keyId(c.key));
  }
  if (current.length) chunks.push(current);
  return chunks;
}
