import { analyticsRoutes } from '#shared/routes/analytics.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { ingest } from '#areas/ai/analytics/ingest.ts';
import { getBudget, llmAnalytics, setBudget, supportAnalytics } from './read.ts';

/** Wiring only: each route's tenant comes resolved from its declared scope (shared/routes/analytics.ts). */
export const handler = apiHandler(analyticsRoutes, {
  'analytics.llm': ({ tenantId, query }) => llmAnalytics(tenantId, query),
  'analytics.support': ({ tenantId, query }) => supportAnalytics(tenantId, query),
  'analytics.budget.get': ({ tenantId }) => getBudget(tenantId),
  'analytics.budget.put': ({ tenantId, body, principal }) => setBudget(tenantId, body.monthlyBudgetUsd, principal),
  'analytics.events': ({ body }) => ingest(body),
});
