import * as z from 'zod/mini';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { uuid } from '#shared/routes/schemas.ts';
import { citationSchema } from '../citations.ts';
import {
  actionAlreadyDecided,
  actionExpired,
  toolNoLongerOnAgent,
  agentPromptMissing,
  agentUnavailable,
  noActivePromptVersion,
  pausedTurnUnreadable,
  TURN_REFUSALS,
} from '#areas/agents/errors.ts';

/** The agents' playground: one turn of the draft, nothing stored as a conversation. */
const manage = { kind: 'bearer', roles: ['TenantOwner'], permission: 'ai:manage' } as const;
const ofAgent = scope.tenant({
  tenantFrom: 'query',
  record: { param: 'agentId', collection: 'AGENT', label: 'Agent' },
});

const message = () =>
  z.object({ role: z.enum(['user', 'assistant']), content: z.string().check(z.minLength(1), z.maxLength(8000)) });

const turnResult = once(() =>
  z.object({
    message: z.string(),
    citations: z.array(citationSchema()),
    toolCalls: z.array(
      z.object({ name: z.string(), status: z.enum(['ok', 'error']), durationMs: z.number(), result: z.string() }),
    ),
    escalate: z.optional(z.object({ reason: z.string() })),
    usage: z.object({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() }),
    pendingActions: z.array(
      z.object({
        id: z.string(),
        tool: z.string(),
        arguments: z.record(z.string(), z.unknown()),
        reason: z.nullable(z.string()),
        expiresAt: z.string(),
      }),
    ),
    /** The prompt version that answered: the Active one, or the forced A/B variant's (null while actions wait). */
    promptVersionId: z.nullable(z.string()),
  }),
);
const actionIds = () => z.optional(z.array(uuid()).check(z.maxLength(20)));

export const agentRuntimeRoutes = defineRoutes([
  {
    group: 'agent-runtime',
    id: 'agents.chat',
    method: 'POST',
    path: '/api/ai/agents/{agentId}/chat',
    auth: manage,
    scope: ofAgent,
    summary:
      "Playground: one turn of the agent's draft (its prompt's Active version, or with variant A or B that version of the prompt's running A/B test, 409 when none runs); answers message, citations and tool calls; nothing is stored as a conversation. A call that needs a person's approval does not run: it comes back in `pendingActions` (the turn is kept), and a next request with `approveActionIds` / `rejectActionIds` decides it (the approved tool runs once) and goes on with the kept turn (`messages` may then be left out)",
    status: 200,
    errors: [
      noActivePromptVersion,
      agentPromptMissing,
      agentUnavailable,
      actionAlreadyDecided,
      actionExpired,
      toolNoLongerOnAgent,
      pausedTurnUnreadable,
      ...TURN_REFUSALS,
    ],
    schemas: () => ({
      params: z.object({ agentId: uuid() }),
      query: z.object({ tenantId: z.optional(uuid()) }),
      body: z.object({
        messages: z.optional(z.array(message()).check(z.minLength(1), z.maxLength(50))),
        variables: z.optional(
          z.record(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/)), z.string().check(z.maxLength(2000))),
        ),
        visitorName: z.optional(z.nullable(z.string().check(z.maxLength(200)))),
        approveActionIds: actionIds(),
        rejectActionIds: actionIds(),
        variant: z.optional(z.enum(['A', 'B'])),
      }),
      response: turnResult(),
    }),
  },
]);
