import { queryItems } from '#shared/data/query.ts';
import { validationError } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import { agentDayRange, resolveRange } from '#areas/analytics/for-agents.ts';
import { readAgent } from './manage-agents.ts';

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const pct = (part: number, whole: number) => (whole ? Math.round((part / whole) * 10_000) / 100 : 0);

/**
 * An agent's stats over a date range (default the last 30 days), summed from its day aggregates
 * (the analytics area writes them as usage is reported): rates are of the conversations, csat the
 * mean of the rated ones; zeros when there is nothing.
 */
export async function agentStats(tenantId: string, agentId: string, q: { startDate?: string; endDate?: string }) {
  await readAgent(tenantId, agentId, false);
  const range = resolveRange(q, new Date().toISOString().slice(0, 10));
  if (!range.ok) throw validationError([{ path: range.path, message: range.message }]);
  const r = agentDayRange(tenantId, agentId, range.startDate, range.endDate);
  const days = await queryItems<Record<string, unknown>>({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': r.pk, ':from': r.from, ':to': r.to },
  });
  const sum = (attr: string) => days.reduce((acc, d) => acc + num(d[attr]), 0);
  const conversations = sum('conversations');
  const csatCount = sum('csatCount');
  return {
    startDate: range.startDate,
    endDate: range.endDate,
    conversations,
    resolutionRatePercent: pct(sum('resolved'), conversations),
    escalationRatePercent: pct(sum('escalated'), conversations),
    csatScore: csatCount ? Math.round((sum('csatSum') / csatCount) * 100) / 100 : 0,
    tokensUsed: sum('tokens'),
    costUsd: Math.round(sum('costUsd') * 1_000_000) / 1_000_000,
    approvals: {
      requested: sum('approvalsRequested'),
      approved: sum('approvalsApproved'),
      rejected: sum('approvalsRejected'),
      expired: sum('approvalsExpired'),
      meanSecondsToDecision: sum('approvalsDecided')
        ? Math.round(sum('approvalWaitMs') / sum('approvalsDecided') / 10) / 100
        : 0,
    },
    capsReached: {
      dailyTokens: sum('cap_dailyTokens'),
      visitorTokens: sum('cap_visitorTokens'),
      sessionTurns: sum('cap_sessionTurns'),
      userDailyTokens: sum('cap_userDailyTokens'),
    },
    declinedOffTopic: sum('declinedOffTopic'),
  };
}
