import { putNew, type TransactItem } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { config } from '#shared/platform/config.ts';

/**
 * The analytics area's records: per tenant and UTC day, usage aggregates (`D#{day}`) with a
 * per-model item below the day (`D#{day}#M#{model}`); the tenant's monthly LLM budget beside
 * its spend per month; one marker per reported record id so a retried batch counts it once.
 */
type Key = { pk: string; sk: string };
export type UsageKind = 'LLM_USAGE' | 'SUPPORT_USAGE';
export type EventKind = 'LLM' | 'CONVERSATION';

export const usageDay = (tenantId: string, kind: UsageKind, day: string, model?: string): Key => ({
  pk: keys.tenantCollection(tenantId, kind),
  sk: model === undefined ? `D#${day}` : `D#${day}#M#${model}`,
});

/** Sort-key bounds of the days `from`..`to` (inclusive) of a usage partition, models included. */
const usageDays = (from: string, to: string) => ({ from: `D#${from}`, to: `D#${to}#~` });

/**
 * One agent's day (tokens, cost, conversations, resolved, escalated, csat): beside the tenant's day
 * items so an agent's stats are one Query over its own partition (GET /api/ai/agents/{agentId}/stats).
 */
export const agentDay = (tenantId: string, agentId: string, day: string): Key =>
  keys.childItem(tenantId, 'AGENT', agentId, 'STATS', `D#${day}`);
export const agentDayRange = (tenantId: string, agentId: string, from: string, to: string) => ({
  pk: keys.childCollection(tenantId, 'AGENT', agentId, 'STATS'),
  from: `D#${from}`,
  to: `D#${to}`,
});

/** The tenant's monthly LLM budget and its spend per month (`spend_YYYY_MM`). */
export const usageBudget = (tenantId: string): Key => ({
  pk: keys.tenantCollection(tenantId, 'LLM_USAGE'),
  sk: 'BUDGET',
});

/** Marks a reported usage record as counted, so a retried batch counts it once. */
export const usageEvent = (tenantId: string, kind: EventKind, id: string): Key => ({
  pk: keys.tenantCollection(tenantId, 'USAGE_EVENT'),
  sk: `${kind}#${id}`,
});

/** A record's marker outlives any retry of its batch; after this a resent id would count again. */
const MARKER_TTL_SECONDS = 35 * 86_400;

/** The marker's Put: fails when the record was counted before. */
export const markerPut = (marker: Key, now: number): TransactItem =>
  putNew({ ...marker, countedAt: new Date(now).toISOString(), ttl: Math.floor(now / 1000) + MARKER_TTL_SECONDS });

/** A day aggregate: counters named by the report (requests, tokens, latency buckets, csat…). */
export type UsageItem = Key & Record<string, unknown>;
export type BudgetItem = Key & { monthlyBudgetUsd?: number | null } & Record<string, unknown>;

/** The day aggregates of a range: one Query over the tenant's usage partition, never raw events. */
export function usageItems(tenantId: string, kind: UsageKind, from: string, to: string) {
  const bounds = usageDays(from, to);
  return queryItems<UsageItem>({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': keys.tenantCollection(tenantId, kind), ':from': bounds.from, ':to': bounds.to },
  });
}

/** The budget as the API shows it. */
export const toBudget = (item: BudgetItem | undefined) => ({
  monthlyBudgetUsd: typeof item?.monthlyBudgetUsd === 'number' ? item.monthlyBudgetUsd : null,
});
