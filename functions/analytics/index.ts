import { scopeTenant } from '#shared/auth/tenant-scope.ts';

import { analyticsRoutes } from '#shared/routes/analytics.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { ingest } from './ingest.ts';
import { getBudget, llmAnalytics, setBudget, supportAnalytics } from './read.ts';

export const handler = apiHandler(analyticsRoutes, {
  'analytics.llm': async ({ principal, query }) =>
    await llmAnalytics(await scopeTenant(principal!, query.tenantId), query),
  'analytics.support': async ({ principal, query }) =>
    await supportAnalytics(await scopeTenant(principal!, query.tenantId), query),
  'analytics.budget.get': async ({ principal, query }) =>
    await getBudget(await scopeTenant(principal!, query.tenantId)),
  'analytics.budget.put': async ({ principal, query, body }) =>
    await setBudget(await scopeTenant(principal!, query.tenantId), body.monthlyBudgetUsd, principal!),
  'analytics.events': async ({ body }) => await ingest(body),
});
