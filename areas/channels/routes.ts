import * as z from 'zod/mini';
import { featureNotInPlan } from '#areas/identity/for-channels.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { pageOf, paging, text, uuid } from '#shared/routes/schemas.ts';
import { CHANNEL_TYPES } from './channel-types.ts';

/**
 * Channel connections (spec 03-ai-runtime.md "AI connector"): a chat platform connected to an agent.
 * Served by the agents function, beside the agents' own routes (docs/decisions/channels.md).
 */
const read = { kind: 'bearer', permission: 'ai:read' } as const;
const manage = { kind: 'bearer', roles: ['TenantOwner'], permission: 'ai:manage' } as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));
const ofTenant = scope.tenant({ tenantFrom: 'query' });
const ofBody = scope.tenant({ tenantFrom: 'body' });
const ofChannel = scope.tenant({
  tenantFrom: 'query',
  record: { param: 'channelId', collection: 'CHANNEL', label: 'Channel connection' },
});

const cap = (max: number) => z.optional(z.nullable(z.int().check(z.minimum(1), z.maximum(max))));
const channelLimits = () => z.object({ userDailyTokens: cap(1_000_000_000) });
const stringMap = (maxValue: number) =>
  z
    .record(
      z.string().check(z.regex(/^[A-Za-z][A-Za-z0-9-]{0,39}$/, 'A setting or credential name')),
      z.string().check(z.minLength(1), z.maxLength(maxValue)),
    )
    .check(z.refine((m) => Object.keys(m).length <= 10, 'At most 10 entries'));
const channelConnection = once(() =>
  z.object({
    id: z.string(),
    type: z.enum(CHANNEL_TYPES),
    name: z.string(),
    agentId: z.string(),
    settings: z.record(z.string(), z.string()),
    secrets: z.record(z.string(), z.boolean()),
    limits: z.object({ userDailyTokens: z.nullable(z.number()) }),
    isActive: z.boolean(),
    webhookUrl: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
const channelParams = once(() => z.object({ channelId: uuid() }));
const common = { group: 'agents' } as const;

export const channelRoutes = defineRoutes([
  {
    ...common,
    id: 'ai.channels.list',
    method: 'GET',
    path: '/api/ai/channels',
    auth: read,
    scope: ofTenant,
    summary: 'Channel connections, newest first; type filters',
    status: 200,
    schemas: () => ({
      query: z.object({ ...tenantQuery(), ...paging(), type: z.optional(z.enum(CHANNEL_TYPES)) }),
      response: pageOf(channelConnection()),
    }),
  },
  {
    ...common,
    id: 'ai.channels.create',
    method: 'POST',
    path: '/api/ai/channels',
    auth: manage,
    scope: ofBody,
    summary:
      "Connect a chat platform to an agent: settings are the platform's public ids, secrets its credentials " +
      '(write-only, kept as tenant secrets; answers say only whether each is set); answers the inbound webhook URL',
    status: 201,
    errors: [featureNotInPlan],
    schemas: () => ({
      body: z.object({
        type: z.enum(CHANNEL_TYPES),
        name: text(200),
        agentId: uuid(),
        settings: z.optional(stringMap(500)),
        secrets: z.optional(stringMap(4096)),
        limits: z.optional(z.nullable(channelLimits())),
        tenantId: z.optional(uuid()),
      }),
      response: channelConnection(),
    }),
  },
  {
    ...common,
    id: 'ai.channels.update',
    method: 'PUT',
    path: '/api/ai/channels/{channelId}',
    auth: manage,
    scope: ofChannel,
    summary: 'Change a connection (absent fields stay); secrets given replace those credentials, write-only',
    status: 200,
    errors: [featureNotInPlan],
    schemas: () => ({
      params: channelParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        name: z.optional(text(200)),
        agentId: z.optional(uuid()),
        settings: z.optional(stringMap(500)),
        isActive: z.optional(z.boolean()),
        secrets: z.optional(stringMap(4096)),
        limits: z.optional(z.nullable(channelLimits())),
      }),
      response: channelConnection(),
    }),
  },
  {
    ...common,
    id: 'ai.channels.delete',
    method: 'DELETE',
    path: '/api/ai/channels/{channelId}',
    auth: manage,
    scope: ofChannel,
    summary: 'Delete a connection and its credentials; its webhook answers 404 afterwards',
    status: 204,
    schemas: () => ({ params: channelParams(), query: z.object(tenantQuery()) }),
  },
]);
