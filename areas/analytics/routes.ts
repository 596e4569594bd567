import * as z from 'zod/mini';
import {
  BUDGET_ALERT_PERCENT,
  BUDGET_LIMITS,
  LABEL_PATTERN,
  MAX_EVENTS_PER_CALL,
  RECORD_ID_PATTERN,
  RECORD_LIMITS,
} from '#areas/analytics/limits.ts';
import { DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS } from '#areas/analytics/range.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { isoDateTime, utcDay, uuid } from '#shared/routes/schemas.ts';

/** LLM and support analytics: read from per-day aggregates that the ingestion route maintains. */
const read = { kind: 'bearer', permission: 'analytics:read' } as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));

const ofTenant = scope.tenant({ tenantFrom: 'query' });

const rangeQuery = once(() =>
  z.object({ ...tenantQuery(), startDate: z.optional(utcDay()), endDate: z.optional(utcDay()) }),
);

/** The reporter's own id of a record: a retried batch with the same ids counts once. */
const recordId = () =>
  z.string().check(z.regex(RECORD_ID_PATTERN, 'Expected 1-100 characters of A-Z, a-z, 0-9, _ . : -'));
/** A tenant the record counts for; checked against the tenants after the schema (400 `No such tenant`). */
const reportedTenant = () =>
  uuid().check(z.meta({ description: 'An existing tenant (400 `No such tenant` otherwise)' }));
const count = (max: number) => z.int().check(z.minimum(0), z.maximum(max));
const money = () => z.number().check(z.minimum(0), z.maximum(RECORD_LIMITS.costUsd));
const label = (max: number) =>
  z.string().check(z.trim(), z.minLength(1), z.maxLength(max), z.regex(LABEL_PATTERN, 'No control characters or #'));

const llmCall = once(() =>
  z.object({
    id: recordId(),
    tenantId: reportedTenant(),
    model: label(100),
    agentId: z.optional(z.nullable(uuid())),
    tokens: count(RECORD_LIMITS.tokens),
    costUsd: money(),
    latencyMs: z.number().check(z.minimum(0), z.maximum(RECORD_LIMITS.latencyMs)),
    isError: z.boolean(),
    timestamp: isoDateTime(),
  }),
);
const conversation = once(() =>
  z.object({
    id: recordId(),
    tenantId: reportedTenant(),
    agentId: z.optional(z.nullable(uuid())),
    startedAt: isoDateTime(),
    durationSeconds: z.number().check(z.minimum(0), z.maximum(RECORD_LIMITS.durationSeconds)),
    resolved: z.boolean(),
    escalated: z.boolean(),
    escalationReason: z.optional(z.nullable(label(100))),
    csat: z.optional(z.nullable(z.int().check(z.minimum(1), z.maximum(5)))),
  }),
);
const eventsBody = once(() =>
  z
    .object({
      llmCalls: z._default(z.array(llmCall()), []),
      conversations: z._default(z.array(conversation()), []),
    })
    .check(
      z.refine((b) => b.llmCalls.length + b.conversations.length <= MAX_EVENTS_PER_CALL, {
        message: `At most ${MAX_EVENTS_PER_CALL} records per call (llmCalls and conversations together)`,
        path: ['llmCalls'],
      }),
    ),
);

const dailyCost = once(() => z.object({ date: z.string(), cost: z.number(), tokens: z.number() }));
const budgetAlert = once(() =>
  z.object({
    month: z.string(),
    currentSpendUsd: z.number(),
    limitUsd: z.number(),
    percentUsed: z.number(),
    projectedMonthEndSpendUsd: z.number(),
  }),
);
const llmAnalytics = once(() =>
  z.object({
    startDate: z.string(),
    endDate: z.string(),
    totalRequests: z.number(),
    totalTokensUsed: z.number(),
    totalCostUSD: z.number(),
    avgLatencyMs: z.number(),
    errorRatePercent: z.number(),
    activeAgentCount: z.number(),
    modelBreakdown: z.array(
      z.object({
        modelName: z.string(),
        requests: z.number(),
        tokensUsed: z.number(),
        costUSD: z.number(),
        dailyCosts: z.array(dailyCost()),
        p95LatencyMs: z.number(),
        p99LatencyMs: z.number(),
      }),
    ),
    budget: z.object({ month: z.string(), monthlyBudgetUsd: z.nullable(z.number()), currentMonthSpendUsd: z.number() }),
    budgetAlert: z.nullable(budgetAlert()),
  }),
);
const supportAnalytics = once(() =>
  z.object({
    startDate: z.string(),
    endDate: z.string(),
    totalConversations: z.number(),
    resolutionRatePercent: z.number(),
    escalationRatePercent: z.number(),
    avgDurationMinutes: z.number(),
    csatScore: z.nullable(z.number()),
    csatResponses: z.number(),
    csatDistribution: z.array(z.object({ score: z.number(), count: z.number() })),
    hourlyHeatmap: z.array(z.object({ hour: z.number(), count: z.number() })),
    escalationReasons: z.array(z.object({ reason: z.string(), count: z.number(), percent: z.number() })),
  }),
);
const budget = once(() => z.object({ monthlyBudgetUsd: z.nullable(z.number()) }));

const A = '/api/analytics';
const common = { group: 'analytics' } as const;

export const analyticsRoutes = defineRoutes([
  {
    ...common,
    id: 'analytics.llm',
    method: 'GET',
    path: `${A}/llm`,
    auth: read,
    scope: ofTenant,
    summary:
      `LLM usage for startDate..endDate (UTC days, both included, at most ${MAX_RANGE_DAYS}; default ` +
      `the last ${DEFAULT_RANGE_DAYS}), with the budget alert from ${BUDGET_ALERT_PERCENT}% of the ` +
      `monthly budget`,
    status: 200,
    schemas: () => ({
      query: rangeQuery(),
      response: llmAnalytics(),
    }),
  },
  {
    ...common,
    id: 'analytics.support',
    method: 'GET',
    path: `${A}/support`,
    auth: read,
    scope: ofTenant,
    summary:
      `Support conversations for startDate..endDate (UTC days, both included, at most ` +
      `${MAX_RANGE_DAYS}; default the last ${DEFAULT_RANGE_DAYS})`,
    status: 200,
    schemas: () => ({ query: rangeQuery(), response: supportAnalytics() }),
  },
  {
    ...common,
    id: 'analytics.budget.get',
    method: 'GET',
    path: `${A}/budget`,
    auth: read,
    scope: ofTenant,
    summary: "The tenant's monthly LLM budget in USD (null: none set, no alert)",
    status: 200,
    schemas: () => ({
      query: z.object(tenantQuery()),
      response: budget(),
    }),
  },
  {
    ...common,
    id: 'analytics.budget.put',
    method: 'PUT',
    path: `${A}/budget`,
    auth: { kind: 'bearer', permission: 'billing:manage' },
    scope: ofTenant,
    summary: "Set the tenant's monthly LLM budget in USD (null removes it)",
    status: 200,
    schemas: () => ({
      query: z.object(tenantQuery()),
      body: z.object({
        monthlyBudgetUsd: z.nullable(z.number().check(z.minimum(BUDGET_LIMITS.min), z.maximum(BUDGET_LIMITS.max))),
      }),
      response: budget(),
    }),
  },
  {
    ...common,
    id: 'analytics.events',
    method: 'POST',
    path: `${A}/events`,
    auth: { kind: 'internalKey' },
    scope: scope.platform,
    summary:
      `Internal: report LLM calls and finished conversations (at most ${MAX_EVENTS_PER_CALL} records; a ` +
      'record id already counted is ignored). Every `tenantId` must name a tenant: one that names none is 400 ' +
      'VALIDATION_ERROR, one issue (`No such tenant`) at the first place it appears',
    status: 200,
    maxBodyBytes: 1024 * 1024,
    schemas: () => ({
      body: eventsBody(),
      response: z.object({ accepted: z.number(), duplicates: z.number() }),
    }),
  },
]);
