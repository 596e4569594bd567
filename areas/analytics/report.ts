import { REASON_PREFIX, spendAttribute } from '#areas/analytics/aggregate.ts';
import { BUDGET_ALERT_PERCENT } from '#areas/analytics/limits.ts';
import { mergeBuckets, quantile, type Histogram } from '#areas/analytics/sketch.ts';
import type { Item } from '#shared/data/keys.ts';

const num = (v: unknown) => (typeof v === 'number' ? v : 0);
const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;
const percent = (part: number, whole: number) => (whole ? round((part / whole) * 100) : 0);
const isModelItem = (item: Item) => String(item.sk).includes('#M#');
const dayOf = (item: Item) => String(item.sk).slice(2, 12);

interface BudgetAlert {
  month: string;
  currentSpendUsd: number;
  limitUsd: number;
  percentUsed: number;
  projectedMonthEndSpendUsd: number;
}

/**
 * The month's spend so far, projected linearly to the month's end from the days begun: spend on
 * day 10 of a 30-day month projects ×3. The alert shows from 80% of the budget on.
 */
function budgetStatus(budgetItem: Item | undefined, now: Date) {
  const month = now.toISOString().slice(0, 7);
  const limitUsd = typeof budgetItem?.monthlyBudgetUsd === 'number' ? budgetItem.monthlyBudgetUsd : null;
  const spend = num(budgetItem?.[spendAttribute(month)]);
  const daysInMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
  const projected = (spend / now.getUTCDate()) * daysInMonth;
  const alert: BudgetAlert | null =
    limitUsd !== null && spend >= (limitUsd * BUDGET_ALERT_PERCENT) / 100
      ? {
          month,
          currentSpendUsd: round(spend, 6),
          limitUsd,
          percentUsed: percent(spend, limitUsd),
          projectedMonthEndSpendUsd: round(projected, 6),
        }
      : null;
  return { budget: { month, monthlyBudgetUsd: limitUsd, currentMonthSpendUsd: round(spend, 6) }, budgetAlert: alert };
}

/** The LLM analytics of a range from its day and model-day aggregate items. */
export function llmReport(items: readonly Item[], budgetItem: Item | undefined, now: Date) {
  const totals = { requests: 0, tokens: 0, cost: 0, latency: 0, errors: 0 };
  const agents = new Set<string>();
  const models = new Map<
    string,
    {
      requests: number;
      tokens: number;
      cost: number;
      days: { date: string; cost: number; tokens: number }[];
      histogram: Histogram;
    }
  >();
  for (const item of items) {
    if (!isModelItem(item)) {
      totals.requests += num(item.requests);
      totals.tokens += num(item.tokens);
      totals.cost += num(item.costUsd);
      totals.latency += num(item.latencySumMs);
      totals.errors += num(item.errors);
      for (const a of (item.agents as Set<string> | undefined) ?? []) agents.add(a);
      continue;
    }
    const name = String(item.model);
    const m = models.get(name) ?? {
      requests: 0,
      tokens: 0,
      cost: 0,
      days: [] as { date: string; cost: number; tokens: number }[],
      histogram: new Map(),
    };
    models.set(name, m);
    m.requests += num(item.requests);
    m.tokens += num(item.tokens);
    m.cost += num(item.costUsd);
    m.days.push({ date: dayOf(item), cost: round(num(item.costUsd), 6), tokens: num(item.tokens) });
    mergeBuckets(m.histogram, item);
  }
  const p = (h: Histogram, q: number) => round(quantile(h, q) ?? 0);
  return {
    totalRequests: totals.requests,
    totalTokensUsed: totals.tokens,
    totalCostUSD: round(totals.cost, 6),
    avgLatencyMs: totals.requests ? round(totals.latency / totals.requests) : 0,
    errorRatePercent: percent(totals.errors, totals.requests),
    activeAgentCount: agents.size,
    modelBreakdown: [...models]
      .map(([modelName, m]) => ({
        modelName,
        requests: m.requests,
        tokensUsed: m.tokens,
        costUSD: round(m.cost, 6),
        dailyCosts: m.days.sort((a, b) => a.date.localeCompare(b.date)),
        p95LatencyMs: p(m.histogram, 0.95),
        p99LatencyMs: p(m.histogram, 0.99),
      }))
      .sort((a, b) => b.costUSD - a.costUSD || a.modelName.localeCompare(b.modelName)),
    ...budgetStatus(budgetItem, now),
  };
}

/** The support analytics of a range from its day aggregate items. */
export function supportReport(items: readonly Item[]) {
  const t = { conversations: 0, resolved: 0, escalated: 0, duration: 0, csatSum: 0, csatCount: 0 };
  const csat = [1, 2, 3, 4, 5].map((score) => ({ score, count: 0 }));
  const hours = Array.from({ length: 24 }, (_, hour) => ({ hour, count: 0 }));
  const reasons = new Map<string, number>();
  for (const item of items) {
    t.conversations += num(item.conversations);
    t.resolved += num(item.resolved);
    t.escalated += num(item.escalated);
    t.duration += num(item.durationSumSeconds);
    t.csatSum += num(item.csatSum);
    t.csatCount += num(item.csatCount);
    for (const c of csat) c.count += num(item[`csat${c.score}`]);
    for (const h of hours) h.count += num(item[`hour${h.hour}`]);
    for (const [attr, v] of Object.entries(item)) {
      if (attr.startsWith(REASON_PREFIX))
        reasons.set(attr.slice(REASON_PREFIX.length), (reasons.get(attr.slice(REASON_PREFIX.length)) ?? 0) + num(v));
    }
  }
  return {
    totalConversations: t.conversations,
    resolutionRatePercent: percent(t.resolved, t.conversations),
    escalationRatePercent: percent(t.escalated, t.conversations),
    avgDurationMinutes: t.conversations ? round(t.duration / t.conversations / 60) : 0,
    csatScore: t.csatCount ? round(t.csatSum / t.csatCount) : null,
    csatResponses: t.csatCount,
    csatDistribution: csat,
    hourlyHeatmap: hours,
    escalationReasons: [...reasons]
      .map(([reason, count]) => ({ reason, count, percent: percent(count, t.escalated) }))
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
  };
}
