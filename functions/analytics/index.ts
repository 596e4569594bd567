import { scopeTenant } from '#shared/auth/tenant-scope.ts';
import { ok } from '#shared/http/responses.ts';
import { analyticsRoutes } from '#shared/routes/analytics.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { ingest } from './ingest.ts';
import { getBudget, llmAnalytics, setBudget, supportAnalytics } from './read.ts';

export const handler = apiHandler(analyticsRoutes, {
  'analytics.llm': async ({ principal, query }) =>
    ok(await llmAnalytics(await scopeTenant(principal!, query.tenantId), query)),
  'analytics.support': async ({ principal, query }) =>
    ok(await supportAnalytics(await scopeTenant(principal!, query.tenantId), query)),
  'analytics.budget.get': async ({ principal, query }) =>
    ok(await getBudget(await scopeTenant(principal!, query.tenantId))),
  'analytics.budget.put': async ({ principal, query, body }) =>
    ok(await setBudget(await scopeTenant(principal!, query.tenantId), body.monthlyBudgetUsd, principal!)),
  'analytics.events': async ({ body }) => ok(await ingest(body)),
});
