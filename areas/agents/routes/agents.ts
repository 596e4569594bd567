import { MAX_RANGE_DAYS, resolveRange } from '#areas/analytics/for-agents.ts';
import * as z from 'zod/mini';
import { AGENT_STATUSES } from '#areas/agents/records.ts';
import { MODEL_KINDS } from '#areas/llm-gateway/for-agents.ts';
import { channelRoutes } from '#areas/channels/for-agents.ts';
import { POSITIONS } from '#areas/agents/widget-records.ts';
import { featureNotInPlan } from '#areas/identity/for-agents.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { optionalText, pageOf, paging, searchTerm, text, utcDay, uuid } from '#shared/routes/schemas.ts';
import { concurrentUpdate, noActivePromptVersion, planLimitReached, promptNotFound } from '#areas/agents/errors.ts';

/** AI agents (spec 03-ai-runtime.md "AI agents" and "Plan entitlements"): agents, versions, entitlements, models. */
const read = { kind: 'bearer', permission: 'ai:read' } as const;
const manage = { kind: 'bearer', roles: ['TenantOwner'], permission: 'ai:manage' } as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));

const ofTenant = scope.tenant({ tenantFrom: 'query' });
const ofBody = scope.tenant({ tenantFrom: 'body' });
/** A SystemAdmin may name an agent by its id alone. */
const ofAgent = scope.tenant({
  tenantFrom: 'query',
  record: { param: 'agentId', collection: 'AGENT', label: 'Agent' },
});

const ofWidget = scope.tenant({
  tenantFrom: 'query',
  record: { param: 'widgetId', collection: 'WIDGET', label: 'Widget' },
});

const MAX_AGENT_TOOLS = 20;
const MAX_AGENT_BASES = 10;

const escalation = () =>
  z.object({
    enabled: z.boolean(),
    noAnswerThreshold: z.number().check(z.minimum(0), z.maximum(1)),
    maxTurnsBeforeEscalation: z.optional(z.nullable(z.int().check(z.minimum(1), z.maximum(100)))),
  });
const toolIds = () => z.array(uuid()).check(z.maxLength(MAX_AGENT_TOOLS));
const knowledgeBaseIds = () => z.array(uuid()).check(z.maxLength(MAX_AGENT_BASES));

const agent = once(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    description: z.nullable(z.string()),
    status: z.enum(AGENT_STATUSES),
    promptId: z.string(),
    promptVersionId: z.nullable(z.string()),
    modelId: z.string(),
    temperature: z.nullable(z.number()),
    welcomeMessage: z.nullable(z.string()),
    escalation: z.object({
      enabled: z.boolean(),
      noAnswerThreshold: z.number(),
      maxTurnsBeforeEscalation: z.nullable(z.number()),
    }),
    answerOnlyFromKnowledge: z.boolean(),
    noAnswerReply: z.nullable(z.string()),
    knowledgeBaseIds: z.array(z.string()),
    toolIds: z.array(z.string()),
    publishedVersion: z.nullable(z.number()),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
const agentVersion = once(() =>
  z.object({
    id: z.string(),
    version: z.number(),
    publishedAt: z.string(),
    publishedBy: z.string(),
    name: z.string(),
    promptId: z.string(),
    promptVersionId: z.string(),
    modelId: z.string(),
    temperature: z.nullable(z.number()),
    welcomeMessage: z.nullable(z.string()),
    escalation: z.object({
      enabled: z.boolean(),
      noAnswerThreshold: z.number(),
      maxTurnsBeforeEscalation: z.nullable(z.number()),
    }),
    answerOnlyFromKnowledge: z.boolean(),
    noAnswerReply: z.nullable(z.string()),
    knowledgeBaseIds: z.array(z.string()),
    toolIds: z.array(z.string()),
  }),
);
const agentFields = () => ({
  name: text(200),
  description: optionalText(2000),
  promptId: uuid(),
  modelId: z.optional(z.nullable(uuid())),
  temperature: z.optional(z.nullable(z.number().check(z.minimum(0), z.maximum(2)))),
  welcomeMessage: optionalText(2000),
  escalation: z.optional(z.nullable(escalation())),
  answerOnlyFromKnowledge: z.optional(z.boolean()),
  noAnswerReply: optionalText(2000),
  knowledgeBaseIds: z.optional(knowledgeBaseIds()),
  toolIds: z.optional(toolIds()),
});
const MAX_ORIGINS = 20;
const theme = () =>
  z.object({
    primaryColor: z.optional(z.string().check(z.regex(/^#[0-9a-fA-F]{6}$/, 'A colour as #rrggbb'))),
    position: z.optional(z.enum(POSITIONS)),
    title: z.optional(text(100)),
  });
const cap = (max: number) => z.optional(z.nullable(z.int().check(z.minimum(1), z.maximum(max))));
const limits = () =>
  z.object({ dailyTokens: cap(1_000_000_000), visitorTokens: cap(1_000_000_000), sessionTurns: cap(10_000) });
const PORT = '(:([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?';
/**
 * What originProblem accepts, as a pattern the API document can show (any case, any port; spelled
 * out in both cases since a JSON Schema pattern has no flags); the handler stores it as a browser
 * sends it (normalOrigin).
 */
const ORIGIN = new RegExp(
  '^([hH][tT][tT][pP][sS]://([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])|[hH][tT][tT][pP]://([lL][oO][cC][aA][lL][hH][oO][sS][tT]|127\\.0\\.0\\.1))' +
    `${PORT}/?$`,
);
const allowedOrigins = () =>
  z
    .array(
      z
        .string()
        .check(z.maxLength(200), z.regex(ORIGIN, 'An https origin, scheme://host[:port] (http only for localhost)')),
    )
    .check(z.minLength(1), z.maxLength(MAX_ORIGINS));
const widget = once(() =>
  z.object({
    id: z.string(),
    agentId: z.string(),
    name: z.string(),
    allowedOrigins: z.array(z.string()),
    theme: z.object({ primaryColor: z.string(), position: z.enum(POSITIONS), title: z.string() }),
    limits: z.object({
      dailyTokens: z.nullable(z.number()),
      visitorTokens: z.nullable(z.number()),
      sessionTurns: z.nullable(z.number()),
    }),
    isActive: z.boolean(),
    widgetKey: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
const widgetParams = once(() => z.object({ widgetId: uuid() }));
const usedLimit = () => z.object({ used: z.number(), limit: z.number() });
const agentParams = once(() => z.object({ agentId: uuid() }));
const common = { group: 'agents' } as const;
const A = '/api/ai/agents';

const agentRoutes = defineRoutes([
  {
    ...common,
    id: 'ai.entitlements',
    method: 'GET',
    path: '/api/ai/entitlements',
    auth: read,
    scope: ofTenant,
    summary:
      "The tenant's AI entitlements: used and limit for agents, knowledge bases, widgets and this month's tokens",
    status: 200,
    schemas: () => ({
      query: z.object(tenantQuery()),
      response: z.object({
        aiAgentsEnabled: z.boolean(),
        agents: usedLimit(),
        knowledgeBases: usedLimit(),
        widgetIntegrations: usedLimit(),
        tokensPerMonth: usedLimit(),
      }),
    }),
  },
  {
    ...common,
    id: 'ai.models',
    method: 'GET',
    path: '/api/ai/models',
    auth: read,
    scope: ofTenant,
    summary: "The catalog's active models (id, name, kind, prices per million tokens, contextWindow)",
    status: 200,
    schemas: () => ({
      query: z.object(tenantQuery()),
      response: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          kind: z.enum(MODEL_KINDS),
          inputPricePerMillion: z.number(),
          outputPricePerMillion: z.number(),
          contextWindow: z.number(),
        }),
      ),
    }),
  },
  {
    ...common,
    id: 'ai.agents.list',
    method: 'GET',
    path: A,
    auth: read,
    scope: ofTenant,
    summary: 'List agents, newest first; search matches the name; status Draft or Published',
    status: 200,
    schemas: () => ({
      query: z.object({
        ...tenantQuery(),
        ...paging(),
        search: searchTerm(),
        status: z.optional(z.enum(AGENT_STATUSES)),
      }),
      response: pageOf(agent()),
    }),
  },
  {
    ...common,
    id: 'ai.agents.create',
    method: 'POST',
    path: A,
    auth: manage,
    scope: ofBody,
    summary:
      "Create a Draft agent from the tenant's prompt (model: the prompt's unless given), its ACTIVE tools and its " +
      'knowledge bases; 403 FEATURE_NOT_IN_PLAN, 409 PLAN_LIMIT_REACHED (maxAgents)',
    status: 201,
    errors: [featureNotInPlan, planLimitReached],
    schemas: () => ({ body: z.object({ ...agentFields(), tenantId: z.optional(uuid()) }), response: agent() }),
  },
  {
    ...common,
    id: 'ai.agents.get',
    method: 'GET',
    path: `${A}/{agentId}`,
    auth: read,
    scope: ofAgent,
    summary: 'An agent (its draft settings, status and published version)',
    status: 200,
    schemas: () => ({ params: agentParams(), query: z.object(tenantQuery()), response: agent() }),
  },
  {
    ...common,
    id: 'ai.agents.update',
    method: 'PUT',
    path: `${A}/{agentId}`,
    auth: manage,
    scope: ofAgent,
    summary: "Replace the agent's draft settings (the published version is unchanged until the next publish)",
    status: 200,
    errors: [featureNotInPlan, concurrentUpdate],
    schemas: () => ({
      params: agentParams(),
      query: z.object(tenantQuery()),
      body: z.object(agentFields()),
      response: agent(),
    }),
  },
  {
    ...common,
    id: 'ai.agents.delete',
    method: 'DELETE',
    path: `${A}/{agentId}`,
    auth: manage,
    scope: ofAgent,
    summary: 'Delete an agent (kept for the audit trail; frees its plan slot; its widgets and channels stop answering)',
    status: 204,
    schemas: () => ({ params: agentParams(), query: z.object(tenantQuery()) }),
  },
  {
    ...common,
    id: 'ai.agents.publish',
    method: 'POST',
    path: `${A}/{agentId}/publish`,
    auth: manage,
    scope: ofAgent,
    summary:
      "Publish a new immutable version pinning the prompt's Active version, the model, tools and bases " +
      '(409 NO_ACTIVE_PROMPT_VERSION without one); status Published',
    status: 200,
    errors: [featureNotInPlan, concurrentUpdate, noActivePromptVersion, promptNotFound],
    schemas: () => ({ params: agentParams(), query: z.object(tenantQuery()), response: agent() }),
  },
  {
    ...common,
    id: 'ai.agents.unpublish',
    method: 'POST',
    path: `${A}/{agentId}/unpublish`,
    auth: manage,
    scope: ofAgent,
    summary: 'Back to Draft: widgets and channels stop answering (versions stay)',
    status: 200,
    errors: [featureNotInPlan, concurrentUpdate],
    schemas: () => ({ params: agentParams(), query: z.object(tenantQuery()), response: agent() }),
  },
  {
    ...common,
    id: 'ai.agents.versions',
    method: 'GET',
    path: `${A}/{agentId}/versions`,
    auth: read,
    scope: ofAgent,
    summary: "The agent's published versions, newest first",
    status: 200,
    schemas: () => ({
      params: agentParams(),
      query: z.object({ ...tenantQuery(), ...paging() }),
      response: pageOf(agentVersion()),
    }),
  },
  {
    ...common,
    id: 'ai.agents.restore',
    method: 'POST',
    path: `${A}/{agentId}/versions/{versionId}/restore`,
    auth: manage,
    scope: ofAgent,
    summary: "The draft takes that version's settings (status and published version unchanged)",
    status: 200,
    errors: [featureNotInPlan, concurrentUpdate],
    schemas: () => ({
      params: z.object({ agentId: uuid(), versionId: uuid() }),
      query: z.object(tenantQuery()),
      response: agent(),
    }),
  },
  {
    ...common,
    id: 'ai.agents.duplicate',
    method: 'POST',
    path: `${A}/{agentId}/duplicate`,
    auth: manage,
    scope: ofAgent,
    summary: "A Draft copy of the agent's draft settings (counts against maxAgents)",
    status: 201,
    errors: [featureNotInPlan, planLimitReached],
    schemas: () => ({
      params: agentParams(),
      query: z.object(tenantQuery()),
      body: z.object({ name: optionalText(200) }),
      response: agent(),
    }),
  },
  {
    ...common,
    id: 'ai.agents.tools',
    method: 'PUT',
    path: `${A}/{agentId}/tools`,
    auth: manage,
    scope: ofAgent,
    summary: "Replace the agent's tools (only the tenant's ACTIVE tools)",
    status: 200,
    errors: [featureNotInPlan, concurrentUpdate],
    schemas: () => ({
      params: agentParams(),
      query: z.object(tenantQuery()),
      body: z.object({ toolIds: toolIds() }),
      response: agent(),
    }),
  },
  {
    ...common,
    id: 'ai.agents.knowledgeBases',
    method: 'PUT',
    path: `${A}/{agentId}/knowledge-bases`,
    auth: manage,
    scope: ofAgent,
    summary: "Replace the agent's knowledge bases (the tenant's own)",
    status: 200,
    errors: [featureNotInPlan, concurrentUpdate],
    schemas: () => ({
      params: agentParams(),
      query: z.object(tenantQuery()),
      body: z.object({ knowledgeBaseIds: knowledgeBaseIds() }),
      response: agent(),
    }),
  },
  {
    ...common,
    id: 'ai.widgets.list',
    method: 'GET',
    path: `${A}/{agentId}/widgets`,
    auth: read,
    scope: ofAgent,
    summary: "The agent's widgets, newest first",
    status: 200,
    schemas: () => ({ params: agentParams(), query: z.object(tenantQuery()), response: z.array(widget()) }),
  },
  {
    ...common,
    id: 'ai.widgets.create',
    method: 'POST',
    path: `${A}/{agentId}/widgets`,
    auth: manage,
    scope: ofAgent,
    summary:
      'Create a widget with its public widgetKey; allowedOrigins https (http only for localhost); ' +
      '409 PLAN_LIMIT_REACHED (maxWidgetIntegrations)',
    status: 201,
    errors: [featureNotInPlan, planLimitReached],
    schemas: () => ({
      params: agentParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        name: text(200),
        allowedOrigins: allowedOrigins(),
        theme: z.optional(z.nullable(theme())),
        limits: z.optional(z.nullable(limits())),
      }),
      response: widget(),
    }),
  },
  {
    ...common,
    id: 'ai.widgets.update',
    method: 'PUT',
    path: '/api/ai/widgets/{widgetId}',
    auth: manage,
    scope: ofWidget,
    summary: 'Change a widget (absent fields stay); an inactive widget starts no sessions',
    status: 200,
    errors: [featureNotInPlan],
    schemas: () => ({
      params: widgetParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        name: z.optional(text(200)),
        allowedOrigins: z.optional(allowedOrigins()),
        theme: z.optional(z.nullable(theme())),
        limits: z.optional(z.nullable(limits())),
        isActive: z.optional(z.boolean()),
      }),
      response: widget(),
    }),
  },
  {
    ...common,
    id: 'ai.widgets.delete',
    method: 'DELETE',
    path: '/api/ai/widgets/{widgetId}',
    auth: manage,
    scope: ofWidget,
    summary: 'Delete a widget: its key stops at once and its plan slot is freed',
    status: 204,
    schemas: () => ({ params: widgetParams(), query: z.object(tenantQuery()) }),
  },
  {
    ...common,
    id: 'ai.widgets.rotateKey',
    method: 'POST',
    path: '/api/ai/widgets/{widgetId}/rotate-key',
    auth: manage,
    scope: ofWidget,
    summary: 'A new widgetKey; the old key stops at once',
    status: 200,
    errors: [featureNotInPlan],
    schemas: () => ({ params: widgetParams(), query: z.object(tenantQuery()), response: widget() }),
  },
  {
    ...common,
    id: 'ai.widgets.embed',
    method: 'GET',
    path: '/api/ai/widgets/{widgetId}/embed',
    auth: read,
    scope: ofWidget,
    summary: 'The HTML snippet a site owner pastes: a script tag loading /api/ai/widget.js with the widgetKey',
    status: 200,
    schemas: () => ({
      params: widgetParams(),
      query: z.object(tenantQuery()),
      response: z.object({ snippet: z.string() }),
    }),
  },
]);

const agentRoutesAfterChannels = defineRoutes([
  {
    ...common,
    id: 'ai.widgetScript',
    method: 'GET',
    path: '/api/ai/widget.js',
    auth: { kind: 'none' },
    scope: scope.public,
    summary: 'The embeddable chat widget script (public, cached); reads its data-widget-key',
    status: 200,
    rawResponse: { contentType: 'text/javascript; charset=utf-8' },
  },
  {
    ...common,
    id: 'ai.agents.stats',
    method: 'GET',
    path: `${A}/{agentId}/stats`,
    auth: read,
    scope: ofAgent,
    summary:
      "The agent's conversations, resolution and escalation rates, csat, tokens and cost over a date range (default 30 days); its tool calls held for approval (requested, approved, rejected, expired, the mean wait for a decision); the messages its caps refused and the off-topic questions it declined without a model",
    status: 200,
    schemas: () => ({
      params: agentParams(),
      // The range rule is part of the contract, so what the schema accepts the handler answers.
      query: z
        .object({
          ...tenantQuery(),
          startDate: z.optional(utcDay()),
          endDate: z.optional(utcDay()),
        })
        .check(
          z.refine((q) => resolveRange(q, new Date().toISOString().slice(0, 10)).ok, {
            message: `endDate must not be before startDate, and the range may span at most ${MAX_RANGE_DAYS} days`,
            // Only over dates the field checks accepted: their own issues already say what is wrong.
            when: (payload) => !payload.issues.length,
          }),
        ),
      response: z.object({
        startDate: z.string(),
        endDate: z.string(),
        conversations: z.number(),
        resolutionRatePercent: z.number(),
        escalationRatePercent: z.number(),
        csatScore: z.number(),
        tokensUsed: z.number(),
        costUsd: z.number(),
        approvals: z.object({
          requested: z.number(),
          approved: z.number(),
          rejected: z.number(),
          expired: z.number(),
          meanSecondsToDecision: z.number(),
        }),
        capsReached: z.object({
          dailyTokens: z.number(),
          visitorTokens: z.number(),
          sessionTurns: z.number(),
          userDailyTokens: z.number(),
        }),
        declinedOffTopic: z.number(),
      }),
    }),
  },
]);

/** The agents function's routes; the channel connections' (areas/channels) sit where they always did. */
export const aiAgentRoutes = [...agentRoutes, ...channelRoutes, ...agentRoutesAfterChannels] as const;
