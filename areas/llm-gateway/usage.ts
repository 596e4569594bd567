import { ingest, resolveRange, type Contribution } from '#areas/analytics/for-llm-gateway.ts';
import { queryItems } from '#shared/data/query.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { config } from '#shared/platform/config.ts';
import { get } from '#shared/data/read.ts';
import { validationError } from '#shared/http/errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { LLM_SPEND_TOTAL } from '#shared/runtime/metric-catalog.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { tokenAllowance } from './allowance.ts';
import type { LeaseUse } from './leases.ts';
import { CALL_RECORDED } from './messages.ts';
import { usedWithOpenLeases } from './reservations.ts';
import { dayOf, fromNano, gatewayKeys, monthOf, type Caller } from './records.ts';

export interface CallRecord {
  tenantId: string;
  caller: Caller;
  requestId: string;
  /** The model that answered (or was asked, when none did). */
  model: string;
  promptTokens: number;
  completionTokens: number;
  costNano: number;
  latencyMs: number;
  isError: boolean;
  at: string;
  /** The leases the call was admitted from (leases.ts), and its use of each. */
  leases?: LeaseUse[];
}

/** What a call adds to its usage item of the day (per model, or per key). */
function usageOf(key: { pk: string; sk: string }, r: CallRecord, name: string, day: string): Contribution {
  return {
    key,
    add: {
      requests: 1,
      promptTokens: r.promptTokens,
      completionTokens: r.completionTokens,
      spendNano: r.costNano,
      errors: r.isError ? 1 : 0,
    },
    set: { name, day },
  };
}

/** The analytics record of a call, with the gateway's own counters for it (usage per day, model, key and lease). */
function llmCallOf(r: CallRecord) {
  const day = dayOf(r.at);
  const alsoCount = [
    usageOf(gatewayKeys.usage(r.tenantId, day, 'M', r.model), r, r.model, day),
    ...(r.caller.kind === 'key'
      ? [usageOf(gatewayKeys.usage(r.tenantId, day, 'K', r.caller.keyId), r, r.caller.keyId, day)]
      : []),
    ...(r.leases ?? []).map((l) => ({
      key: gatewayKeys.leaseUse(l.tenantId, l.id),
      add: { [l.field]: l.used },
      // Kept past the lease's expiry, when the sweep reads it, then left to DynamoDB's TTL.
      set: { lastUsedAt: r.at, ttl: Math.ceil(l.expiresAt / 1000) + 3600 },
    })),
  ];
  return {
    id: r.requestId,
    tenantId: r.tenantId,
    model: r.model,
    agentId: r.caller.kind === 'agent' ? r.caller.agentId : null,
    tokens: r.promptTokens + r.completionTokens,
    costUsd: fromNano(r.costNano),
    latencyMs: r.latencyMs,
    isError: r.isError,
    timestamp: r.at,
    alsoCount,
  };
}

/**
 * Counts calls' records once each (the request id is the analytics record's id: a retried or
 * redelivered record counts once), through the analytics ingestion in-process, the gateway's usage
 * items in the same transactions: a batch of calls is a transaction per hundred items, their
 * shared counters merged.
 */
export async function ingestRecords(records: readonly CallRecord[]): Promise<void> {
  await ingest({ llmCalls: records.map(llmCallOf), conversations: [] }, { tenantsKnown: true });
}

/**
 * A delivery's records ingested together; when that fails, each on its own, so one that cannot be
 * written is retried (and at last parked) alone rather than with the hundred beside it. Resolves to
 * the request ids that failed. Each counts once by its request id, so none counted before counts again.
 */
export async function ingestBatch(records: readonly CallRecord[]): Promise<string[]> {
  try {
    await ingestRecords(records);
    return [];
  } catch (error) {
    if (records.length === 1) throw error;
    logger.warn('model call records failed together: ingested one by one', { count: records.length });
  }
  const failed: string[] = [];
  for (const r of records) {
    try {
      await ingestRecords([r]);
    } catch (error) {
      logger.error('model call record not ingested', { requestId: r.requestId, error: error as Error });
      failed.push(r.requestId);
    }
  }
  return failed;
}

/**
 * Records a call once, after its answer: queued for the usage worker, which ingests records in
 * batches (one transaction for many calls instead of one for each). When the queue cannot take it,
 * the record is ingested here and now instead. A call's answer never fails because its recording
 * did: that is logged and counted instead.
 */
export async function recordCall(r: CallRecord): Promise<void> {
  // Spend in millionths of a dollar by model, for the dashboard (a count metric adds them up), and
  // once more under one fixed value: an alarm cannot sum a changing set of models (lib/monitoring.ts).
  if (r.costNano >= 1000) {
    const micro = Math.round(r.costNano / 1000);
    countMetric('LlmSpendMicroUsd', r.model, micro);
    countMetric('LlmSpendTotalMicroUsd', LLM_SPEND_TOTAL, micro);
  }
  try {
    await enqueue(CALL_RECORDED, r, { id: r.requestId });
    return;
  } catch (error) {
    logger.warn('model call record not queued: ingested in-process', { requestId: r.requestId, error: error as Error });
  }
  try {
    await ingestRecords([r]);
  } catch (error) {
    countMetric('LlmRecordFailed', 'gateway');
    logger.error('model call not recorded', { requestId: r.requestId, error: error as Error });
  }
}

interface UsageItem {
  sk: string;
  name?: string;
  requests?: number;
  promptTokens?: number;
  completionTokens?: number;
  spendNano?: number;
}

const sumBy = (items: UsageItem[], by: 'M' | 'K') => {
  const out = new Map<
    string,
    { requests: number; promptTokens: number; completionTokens: number; spendNano: number }
  >();
  for (const i of items.filter((i) => i.sk.split('#')[2] === by)) {
    const name = String(i.name ?? i.sk.split('#').slice(3).join('#'));
    const row = out.get(name) ?? { requests: 0, promptTokens: 0, completionTokens: 0, spendNano: 0 };
    row.requests += Number(i.requests ?? 0);
    row.promptTokens += Number(i.promptTokens ?? 0);
    row.completionTokens += Number(i.completionTokens ?? 0);
    row.spendNano += Number(i.spendNano ?? 0);
    out.set(name, row);
  }
  return [...out].map(([name, r]) => ({ ...r, spendUsd: fromNano(r.spendNano), name }));
};

/**
 * GET /api/llm-gateway/usage: the month's tokens against the allowance (the month of endDate), and
 * per model and per key over startDate..endDate (UTC days; default the last 30).
 */
export async function usage(tenantId: string, q: { startDate?: string; endDate?: string }, now = new Date()) {
  const range = resolveRange(q, now.toISOString().slice(0, 10));
  if (!range.ok) throw validationError([{ path: `query.${range.path}`, message: range.message }]);
  const month = monthOf(range.endDate);
  const bounds = gatewayKeys.usageRange(tenantId, range.startDate, range.endDate);
  const [items, allowance, limit] = await Promise.all([
    queryItems<UsageItem>({
      TableName: config.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': bounds.pk, ':from': bounds.from, ':to': bounds.to },
    }),
    get<Record<string, unknown>>(gatewayKeys.allowance(tenantId, month)),
    tokenAllowance(tenantId),
  ]);
  // Settled use, and what the month's open leases have used so far (reservations.ts).
  const tokensUsed = (await usedWithOpenLeases(allowance, 'Tokens')).used;
  const models = sumBy(items, 'M');
  const byKey = sumBy(items, 'K');
  const strip = ({ spendNano: _, name: __, ...r }: (typeof models)[number]) => r;
  return {
    month,
    startDate: range.startDate,
    endDate: range.endDate,
    tokensUsed,
    // Held for calls in flight, and leased to gateway instances but not used yet.
    tokensReserved: Math.max(0, Number(allowance?.committedTokens ?? 0) - tokensUsed),
    tokenAllowance: limit,
    spendUsd: fromNano(models.reduce((s, m) => s + m.spendNano, 0)),
    models: models.map((m) => ({ model: m.name, ...strip(m) })),
    keys: byKey.map((k) => ({ keyId: k.name, ...strip(k) })),
  };
}
