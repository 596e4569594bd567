import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, updateItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { validationError } from '#shared/http/errors.ts';
import { resolveRange } from '#areas/analytics/range.ts';
import { toBudget, usageBudget, usageItems, type BudgetItem } from '#areas/analytics/records.ts';
import { llmReport, supportReport } from './report.ts';

function rangeOf(q: { startDate?: string; endDate?: string }, now: Date) {
  const range = resolveRange(q, now.toISOString().slice(0, 10));
  if (!range.ok) throw validationError([{ path: `query.${range.path}`, message: range.message }]);
  return range;
}

export async function llmAnalytics(tenantId: string, q: { startDate?: string; endDate?: string }, now = new Date()) {
  const range = rangeOf(q, now);
  const [items, budget] = await Promise.all([
    usageItems(tenantId, 'LLM_USAGE', range.startDate, range.endDate),
    get<BudgetItem>(usageBudget(tenantId)),
  ]);
  return { startDate: range.startDate, endDate: range.endDate, ...llmReport(items, budget, now) };
}

export async function supportAnalytics(
  tenantId: string,
  q: { startDate?: string; endDate?: string },
  now = new Date(),
) {
  const range = rangeOf(q, now);
  return {
    startDate: range.startDate,
    endDate: range.endDate,
    ...supportReport(await usageItems(tenantId, 'SUPPORT_USAGE', range.startDate, range.endDate)),
  };
}

export const getBudget = async (tenantId: string) => toBudget(await get<BudgetItem>(usageBudget(tenantId)));

/** The budget lives on the tenant's LLM usage budget item, beside the month's spend. */
export async function setBudget(tenantId: string, given: number | null, actor: Principal) {
  const before = toBudget(await get<BudgetItem>(usageBudget(tenantId), { consistent: true }));
  const monthlyBudgetUsd = given === null ? null : Math.round(given * 100) / 100;
  await commitChange([updateItem(usageBudget(tenantId), { monthlyBudgetUsd })], {
    tenantId,
    actor,
    entityType: 'LlmBudget',
    entityId: tenantId,
    action: 'update',
    changes: { monthlyBudgetUsd: { from: before.monthlyBudgetUsd, to: monthlyBudgetUsd } },
  });
  return { monthlyBudgetUsd };
}
