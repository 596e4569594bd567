import { adminRoutes } from './admin.ts';
import { analyticsRoutes } from './analytics.ts';
import { authRoutes } from './auth.ts';
import { bcmRoutes } from './bcm.ts';
import { billingRoutes } from './billing.ts';
import { webhookRoutes } from './webhooks.ts';
import { catalogRoutes } from './catalog.ts';
import { knowledgeRoutes } from './knowledge.ts';
import { aiAgentRoutes } from './ai-agents.ts';
import { contentAdminRoutes } from './content-admin.ts';
import { contentPublicRoutes } from './content-public.ts';
import { llmGatewayRoutes } from './llm-gateway.ts';
import { localRoutes } from './local.ts';
import { onboardingRoutes } from './onboarding.ts';
import { orgRoutes } from './org.ts';
import { promptRoutes } from './prompts.ts';
import { systemRoutes } from './system.ts';
import { tenantRoutes } from './tenants.ts';
import { toolRoutes } from './tools.ts';
import type { RouteDef } from './types.ts';
import { agentRuntimeRoutes } from './ai-agent-runtime.ts';
import { conversationRoutes } from './conversations.ts';
import { userRoutes } from './users.ts';
import { connectorRoutes } from './connector.ts';
import { vaultRoutes } from './vault.ts';

/**
 * The route table: the single source of the API Gateway routes, the local server's router,
 * the authorization rules and the OpenAPI document. Each area keeps its routes in its own file;
 * a group's Lambda imports only its own area's file.
 */
export const routes: readonly RouteDef[] = [
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
  ...localRoutes,
  ...agentRuntimeRoutes,
  ...conversationRoutes,
  ...connectorRoutes,
];

export const deployedRoutes = () => routes.filter((r) => !r.localOnly);
