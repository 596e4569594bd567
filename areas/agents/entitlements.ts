import { config } from '#shared/platform/config.ts';
import { get } from '#shared/data/read.ts';
import type { TransactItem } from '#shared/data/commit.ts';
import { featureNotInPlan } from './errors.ts';
import { tenantKey } from './records.ts';
import { PLANS } from '#areas/billing/for-agents.ts';
import { tokenAllowance, gatewayKeys, monthOf } from '#areas/llm-gateway/for-agents.ts';

/**
 * What the tenant's plan lets it use of the AI runtime (spec "Plan entitlements"). The limits sit
 * on the tenant item (the plan's, overridable by a SystemAdmin); the counters beside them are
 * taken and freed in the same transaction as the record they count, under a condition, so twenty
 * parallel creates against one free slot create exactly one.
 */
type TenantLimits = {
  planType?: number;
  maxAgents?: number;
  maxKnowledgeBases?: number;
  maxWidgetIntegrations?: number | null;
  aiAgentsEnabled?: boolean | null;
  agentCount?: number;
  knowledgeBaseCount?: number;
  widgetCount?: number;
};

const planOf = (planType: number | undefined) => PLANS.find((p) => p.type === (planType ?? 1))?.features;
const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, v) : 0);

async function readTenant(tenantId: string): Promise<TenantLimits> {
  return (await get<TenantLimits>(tenantKey(tenantId), { consistent: true })) ?? {};
}

/**
 * AI agents are on when the tenant item says so (a SystemAdmin's override), else when the plan
 * includes them and allows at least one agent (the tenant's features.aiAgents).
 */
const agentsEnabled = (t: TenantLimits) =>
  typeof t.aiAgentsEnabled === 'boolean'
    ? t.aiAgentsEnabled
    : !!planOf(t.planType)?.aiAgentsEnabled && n(t.maxAgents) > 0;

/** The widget limit: the tenant item's override, else its plan's. */
const widgetLimit = (t: TenantLimits) =>
  typeof t.maxWidgetIntegrations === 'number'
    ? t.maxWidgetIntegrations
    : (planOf(t.planType)?.maxWidgetIntegrations ?? 0);

/** Every agent, widget and channel write starts here: 403 FEATURE_NOT_IN_PLAN when off. */
export async function requireAgents(tenantId: string): Promise<TenantLimits> {
  const tenant = await readTenant(tenantId);
  if (!agentsEnabled(tenant)) throw featureNotInPlan();
  return tenant;
}

/** Takes (+1) or frees (-1) an agent slot; taking is conditional on `agentCount < maxAgents`. */
export function agentSlot(tenantId: string, by: 1 | -1): TransactItem {
  return {
    Update: {
      TableName: config.tableName,
      Key: tenantKey(tenantId),
      UpdateExpression: 'ADD agentCount :by',
      ConditionExpression:
        by > 0
          ? 'attribute_exists(pk) AND ((attribute_not_exists(agentCount) AND maxAgents > :zero) OR agentCount < maxAgents)'
          : 'attribute_exists(pk)',
      ExpressionAttributeValues: by > 0 ? { ':by': by, ':zero': 0 } : { ':by': by },
    },
  };
}

/**
 * Takes or frees a widget slot. The plan's widget limit is not copied onto every tenant item, so
 * the limit read with the tenant goes into the condition as a value; the counter itself is what
 * the condition guards, so parallel creates still take exactly the free slots.
 */
export function widgetSlot(tenantId: string, by: 1 | -1, tenant: TenantLimits = {}): TransactItem {
  return {
    Update: {
      TableName: config.tableName,
      Key: tenantKey(tenantId),
      UpdateExpression: 'ADD widgetCount :by',
      ConditionExpression:
        by > 0
          ? 'attribute_exists(pk) AND ((attribute_not_exists(widgetCount) AND :limit > :zero) OR widgetCount < :limit)'
          : 'attribute_exists(pk)',
      ExpressionAttributeValues: by > 0 ? { ':by': by, ':zero': 0, ':limit': widgetLimit(tenant) } : { ':by': by },
    },
  };
}

export async function entitlements(tenantId: string, now = new Date()) {
  const [tenant, allowance, month] = await Promise.all([
    readTenant(tenantId),
    tokenAllowance(tenantId),
    get<{ committedTokens?: number }>(gatewayKeys.allowance(tenantId, monthOf(now.toISOString()))),
  ]);
  return {
    aiAgentsEnabled: agentsEnabled(tenant),
    agents: { used: n(tenant.agentCount), limit: n(tenant.maxAgents) },
    knowledgeBases: { used: n(tenant.knowledgeBaseCount), limit: n(tenant.maxKnowledgeBases) },
    widgetIntegrations: { used: n(tenant.widgetCount), limit: widgetLimit(tenant) },
    tokensPerMonth: { used: n(month?.committedTokens), limit: allowance },
  };
}
