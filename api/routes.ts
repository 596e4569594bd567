import { adminRoutes } from '#areas/admin/routes.ts';
import { agentRuntimeRoutes } from '#areas/agents/routes/agent-runtime.ts';
import { aiAgentRoutes } from '#areas/agents/routes/agents.ts';
import { analyticsRoutes } from '#areas/analytics/routes.ts';
import { calendarRoutes } from '#areas/calendars/routes.ts';
import { bcmRoutes } from '#areas/bcm/routes.ts';
import { billingRoutes } from '#areas/billing/routes/billing.ts';
import { webhookRoutes } from '#areas/billing/routes/webhooks.ts';
import { catalogRoutes } from '#areas/catalog/routes.ts';
import { connectorRoutes } from '#areas/connector/routes.ts';
import { contentAdminRoutes } from '#areas/content/routes/admin.ts';
import { contentPublicRoutes } from '#areas/content/routes/public.ts';
import { conversationRoutes } from '#areas/conversations/routes.ts';
import { authRoutes } from '#areas/identity/routes/auth.ts';
import { onboardingRoutes } from '#areas/identity/routes/onboarding.ts';
import { orgRoutes } from '#areas/identity/routes/org.ts';
import { tenantRoutes } from '#areas/identity/routes/tenants.ts';
import { userRoutes } from '#areas/identity/routes/users.ts';
import { knowledgeRoutes } from '#areas/knowledge/routes.ts';
import { llmGatewayRoutes } from '#areas/llm-gateway/routes.ts';
import { outboundWebhookRoutes } from '#areas/outbound-webhooks/routes.ts';
import { promptRoutes } from '#areas/prompts/routes.ts';
import { systemRoutes } from '#areas/system/routes.ts';
import { toolRoutes } from '#areas/tools/routes.ts';
import { vaultRoutes } from '#areas/vault/routes.ts';
import type { RouteDef } from '#shared/routes/types.ts';

/**
 * The deployed route table: every area's routes, the single source of the API Gateway routes, the
 * authorization rules and the OpenAPI document. Each area keeps its routes in its own module; a
 * group's Lambda imports only its own, never this table.
 */
export const deployedRoutes: readonly RouteDef[] = [
  ...systemRoutes,
  ...authRoutes,
  ...userRoutes,
  ...tenantRoutes,
  ...orgRoutes,
  ...onboardingRoutes,
  ...adminRoutes,
  ...catalogRoutes,
  ...bcmRoutes,
  ...billingRoutes,
  ...webhookRoutes,
  ...contentAdminRoutes,
  ...contentPublicRoutes,
  ...promptRoutes,
  ...toolRoutes,
  ...analyticsRoutes,
  ...vaultRoutes,
  ...knowledgeRoutes,
  ...llmGatewayRoutes,
  ...aiAgentRoutes,
  ...agentRuntimeRoutes,
  ...conversationRoutes,
  ...connectorRoutes,
  ...calendarRoutes,
  ...outboundWebhookRoutes,
];
