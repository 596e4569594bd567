import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { analyticsRoutes } from '#areas/analytics/routes.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { ingest } from '#areas/analytics/ingest.ts';
import { getBudget, llmAnalytics, setBudget, supportAnalytics } from '#areas/analytics/read.ts';

/** Wiring only: each route's tenant comes resolved from its declared scope (areas/analytics/routes.ts). */
export const handler = apiHandler(
  analyticsRoutes,
  {
    'analytics.llm': ({ tenantId, query }) => llmAnalytics(tenantId, query),
    'analytics.support': ({ tenantId, query }) => supportAnalytics(tenantId, query),
    'analytics.budget.get': ({ tenantId }) => getBudget(tenantId),
    'analytics.budget.put': ({ tenantId, body, principal }) => setBudget(tenantId, body.monthlyBudgetUsd, principal),
    'analytics.events': ({ body }) => ingest(body),
  },
  { tenants: tenantDirectory },
);
