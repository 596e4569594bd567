import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, updateItem } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { getItem } from '#shared/data/collection.ts';
import { validationError } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import { resolveRange } from './range.ts';
import { llmReport, supportReport } from './report.ts';

function rangeOf(q: { startDate?: string; endDate?: string }, now: Date) {
  const range = resolveRange(q, now.toISOString().slice(0, 10));
  if (!range.ok) throw validationError([{ path: `query.${range.path}`, message: range.message }]);
  return range;
}

/** The day aggregates of a range: one Query over the tenant's usage partition, never raw events. */
const daysOf = (t: string, kind: 'LLM_USAGE' | 'SUPPORT_USAGE', from: string, to: string) => {
  const bounds = keys.usageDays(from, to);
  return queryItems({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': keys.usageDay(t, kind, from).pk, ':from': bounds.from, ':to': bounds.to },
  });
};

export async function llmAnalytics(t: string, q: { startDate?: string; endDate?: string }, now = new Date()) {
  const range = rangeOf(q, now);
  const [items, budget] = await Promise.all([
    daysOf(t, 'LLM_USAGE', range.startDate, range.endDate),
    getItem(keys.usageBudget(t)),
  ]);
  return { startDate: range.startDate, endDate: range.endDate, ...llmReport(items, budget, now) };
}

export async function supportAnalytics(t: string, q: { startDate?: string; endDate?: string }, now = new Date()) {
  const range = rangeOf(q, now);
  return {
    startDate: range.startDate,
    endDate: range.endDate,
    ...supportReport(await daysOf(t, 'SUPPORT_USAGE', range.startDate, range.endDate)),
  };
}

export async function getBudget(t: string) {
  const item = await getItem(keys.usageBudget(t));
  return { monthlyBudgetUsd: typeof item?.monthlyBudgetUsd === 'number' ? item.monthlyBudgetUsd : null };
}

/** The budget lives on the tenant's LLM usage budget item, beside the month's spend. */
export async function setBudget(t: string, monthlyBudgetUsd: number | null, actor: Principal) {
  const before = await getBudget(t);
  monthlyBudgetUsd = monthlyBudgetUsd === null ? null : Math.round(monthlyBudgetUsd * 100) / 100;
  await commitChange([updateItem(keys.usageBudget(t), { monthlyBudgetUsd })], {
    tenantId: t,
    actor,
    entityType: 'LlmBudget',
    entityId: t,
    action: 'update',
    changes: { monthlyBudgetUsd: { from: before.monthlyBudgetUsd, to: monthlyBudgetUsd } },
  });
  return { monthlyBudgetUsd };
}
