import { checkItem, updateItem, type TransactItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { config } from '#shared/platform/config.ts';
import { featureNotInPlan } from './errors.ts';
import { planFeatures } from './plans.ts';
import { identityKeys } from './records.ts';

/**
 * What the tenant's plan lets it use of the AI runtime (spec "Plan entitlements"). The limits sit
 * on the tenant item (the plan's, overridable by a SystemAdmin); the counters beside them are
 * taken and freed in the same transaction as the record they count (`planSlot`), under a
 * condition, so twenty parallel creates against one free slot create exactly one. Identity alone
 * writes the tenant item: other areas put these write builders into their own transactions.
 */
export type TenantLimits = {
  planType?: number;
  maxAgents?: number;
  maxKnowledgeBases?: number;
  maxWidgetIntegrations?: number | null;
  aiAgentsEnabled?: boolean | null;
  agentCount?: number;
  knowledgeBaseCount?: number;
  widgetCount?: number;
};

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, v) : 0);

/** The tenant's limits and counters as they are now (strongly consistent: a slot's check reads them). */
export const tenantLimits = async (tenantId: string): Promise<TenantLimits> =>
  (await get<TenantLimits>(identityKeys.tenant(tenantId), { consistent: true })) ?? {};

/**
 * AI agents are on when the tenant item says so (a SystemAdmin's override), else when the plan
 * includes them and allows at least one agent (the tenant's features.aiAgents).
 */
const agentsEnabled = (t: TenantLimits) =>
  typeof t.aiAgentsEnabled === 'boolean'
    ? t.aiAgentsEnabled
    : !!planFeatures(t.planType)?.aiAgentsEnabled && n(t.maxAgents) > 0;

/** The widget limit: the tenant item's override, else its plan's. */
const widgetLimit = (t: TenantLimits) =>
  typeof t.maxWidgetIntegrations === 'number'
    ? t.maxWidgetIntegrations
    : (planFeatures(t.planType)?.maxWidgetIntegrations ?? 0);

/** Every agent, widget and channel write starts here: 403 FEATURE_NOT_IN_PLAN when off. */
export async function requireAgents(tenantId: string): Promise<TenantLimits> {
  const tenant = await tenantLimits(tenantId);
  if (!agentsEnabled(tenant)) throw featureNotInPlan();
  return tenant;
}

/**
 * The slots a plan counts: each a counter on the tenant item beside its limit. The agent and
 * knowledge-base limits are stored on the item; the plan's widget limit is not copied onto every
 * tenant item, so the limit read with the tenant goes into the condition as a value (the counter
 * itself is what the condition guards, so parallel creates still take exactly the free slots).
 */
const SLOTS = {
  agents: { counter: 'agentCount', limit: { stored: 'maxAgents' } },
  knowledgeBases: { counter: 'knowledgeBaseCount', limit: { stored: 'maxKnowledgeBases' } },
  widgets: { counter: 'widgetCount', limit: { read: widgetLimit } },
} as const;
export type PlanSlot = keyof typeof SLOTS;

/** Takes (+1) or frees (-1) one slot; taking is conditional on a free one (`tenant`: the limits read, for a read limit). */
export function planSlot(tenantId: string, slot: PlanSlot, by: 1 | -1, tenant: TenantLimits = {}): TransactItem {
  const { counter, limit } = SLOTS[slot];
  const bound = 'stored' in limit ? limit.stored : ':limit';
  return {
    Update: {
      TableName: config.tableName,
      Key: identityKeys.tenant(tenantId),
      UpdateExpression: `ADD ${counter} :by`,
      ConditionExpression:
        by > 0
          ? `attribute_exists(pk) AND ((attribute_not_exists(${counter}) AND ${bound} > :zero) OR ${counter} < ${bound})`
          : 'attribute_exists(pk)',
      ExpressionAttributeValues:
        by > 0
          ? { ':by': by, ':zero': 0, ...('read' in limit ? { ':limit': limit.read(tenant) } : {}) }
          : { ':by': by },
    },
  };
}

/** What the tenant uses of each AI limit (the entitlements route; the month's tokens are the gateway's). */
export async function aiLimits(tenantId: string) {
  const tenant = await tenantLimits(tenantId);
  return {
    aiAgentsEnabled: agentsEnabled(tenant),
    agents: { used: n(tenant.agentCount), limit: n(tenant.maxAgents) },
    knowledgeBases: { used: n(tenant.knowledgeBaseCount), limit: n(tenant.maxKnowledgeBases) },
    widgetIntegrations: { used: n(tenant.widgetCount), limit: widgetLimit(tenant) },
  };
}

/** The limits a plan gives a tenant, as billing moves them with its subscription. */
export interface PlanLimits {
  planType: number;
  maxAgents: number;
  maxKnowledgeBases: number;
  /** The LLM gateway's month token allowance. */
  maxTokensPerMonth: number;
}

/** The tenant on these limits (a subscription's activation, renewal or fall back to the baseline). */
export const planLimitsWrite = (
  tenantId: string,
  limits: PlanLimits,
  trialExpiresAt: string | null,
  now: string,
): TransactItem =>
  updateItem(
    identityKeys.tenant(tenantId),
    { ...limits, trialExpiresAt, updatedAt: now },
    {
      condition: 'attribute_exists(pk)',
    },
  );

/** The tenant's trial end moved (a trialing subscription's trial extended). */
export const trialWrite = (tenantId: string, until: string): TransactItem =>
  updateItem(identityKeys.tenant(tenantId), { trialExpiresAt: until }, { condition: 'attribute_exists(pk)' });

/** A transaction's condition that the tenant still exists. */
export const tenantStillExists = (tenantId: string): TransactItem =>
  checkItem(identityKeys.tenant(tenantId), 'attribute_exists(pk)');
