import * as z from 'zod/mini';
import { MAX_TOKENS_PER_MONTH } from '#areas/identity/vocabulary.ts';
import {
  MAX_ROLES_PER_USER,
  PLAN_TYPES,
  SETTABLE_TENANT_STATUSES,
  SLUG_MAX,
  SLUG_PATTERN,
  TENANT_LIMIT_MAX,
  TENANT_STATUS_NAMES,
  type TenantStatusName,
} from '#areas/identity/vocabulary.ts';
import { email, nameText, optionalText, pageOf, paging, searchTerm, text } from '#shared/routes/schemas.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { seatLimitReached } from '#areas/identity/errors.ts';

const slug = () =>
  z
    .string()
    .check(
      z.maxLength(SLUG_MAX),
      z.regex(
        SLUG_PATTERN,
        `Slug must be 3-${SLUG_MAX} lowercase letters, digits or hyphens, starting and ending with a letter or digit`,
      ),
    );
const limit = () =>
  z.number().check(z.int('Expected a whole number'), z.minimum(0, 'Must not be negative'), z.maximum(TENANT_LIMIT_MAX));
const PLAN_TYPE_MESSAGE = `planType is ${PLAN_TYPES.slice(0, -1).join(', ')} or ${PLAN_TYPES.at(-1)}`;
const planType = () =>
  z
    .number()
    .check(
      z.int('Expected a whole number'),
      z.minimum(Math.min(...PLAN_TYPES), PLAN_TYPE_MESSAGE),
      z.maximum(Math.max(...PLAN_TYPES), PLAN_TYPE_MESSAGE),
    );

/** A status name in any letter case; anything else is a validation error. */
const statusName = <const T extends readonly TenantStatusName[]>(allowed: T) =>
  z.pipe(
    z.string().check(z.trim(), z.maxLength(20), z.toUpperCase()),
    z.enum(allowed, `Expected one of ${allowed.join(', ')}`),
  );

const tenantSummarySchema = once(() =>
  z.object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    planType: z.number(),
    status: z.number(),
    trialExpiresAt: z.nullable(z.string()),
    maxAgents: z.number(),
    maxKnowledgeBases: z.number(),
    isActive: z.boolean(),
    createdAt: z.string(),
  }),
);

const tenantDetailSchema = once(() =>
  z.object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    email: z.string(),
    phone: z.nullable(z.string()),
    planType: z.number(),
    status: z.number(),
    trialExpiresAt: z.nullable(z.string()),
    maxAgents: z.number(),
    maxKnowledgeBases: z.number(),
    maxSeats: z.number(),
    seatCount: z.number(),
    maxTokensPerMonth: z.number(),
    features: z.object({ aiAgents: z.boolean(), knowledgeBase: z.boolean() }),
    isActive: z.boolean(),
    createdAt: z.string(),
  }),
);

const invitationCreatedSchema = once(() => z.object({ invitationCode: z.string(), expiresAt: z.string() }));

const slugParams = once(() => z.object({ slug: slug() }));

export const tenantRoutes = defineRoutes([
  {
    id: 'tenants.list',
    method: 'GET',
    path: '/api/tenants',
    group: 'tenants',
    auth: { kind: 'bearer', roles: ['TenantOwner'], permission: 'tenants:write' },
    summary: 'List tenants newest first (SystemAdmin: all; TenantOwner: only its own); `search` matches name and slug',
    scope: scope.platform,
    status: 200,
    schemas: () => ({
      query: z.object({
        search: searchTerm(),
        planType: z.optional(
          z.pipe(
            z.string().check(z.regex(new RegExp(`^(?:${PLAN_TYPES.join('|')})$`), PLAN_TYPE_MESSAGE)),
            z.transform((v: string) => Number(v)),
          ),
        ),
        statusFilter: z.optional(statusName(TENANT_STATUS_NAMES)),
        ...paging(),
      }),
      response: pageOf(tenantSummarySchema()),
    }),
  },
  {
    id: 'tenants.get',
    method: 'GET',
    path: '/api/tenants/{slug}',
    group: 'tenants',
    auth: { kind: 'bearer', permission: 'tenants:read' },
    summary: "Tenant detail by slug: the caller's own tenant (another tenant's slug is 404), any for a SystemAdmin",
    scope: scope.tenant({ tenantFrom: 'slug' }),
    status: 200,
    schemas: () => ({
      params: slugParams(),
      response: tenantDetailSchema(),
    }),
  },
  {
    id: 'tenants.create',
    method: 'POST',
    path: '/api/tenants',
    group: 'tenants',
    auth: { kind: 'bearer', roles: ['SystemAdmin'] },
    summary: 'Create an Active tenant with its system roles (SystemAdmin); a taken slug is 409 CONFLICT',
    scope: scope.platform,
    status: 201,
    schemas: () => ({
      body: z.object({
        slug: slug(),
        name: nameText(200),
        email: email(),
        phone: optionalText(40),
        planType: planType(),
        maxAgents: limit(),
        maxKnowledgeBases: limit(),
        maxSeats: limit(),
      }),
      response: tenantDetailSchema(),
    }),
  },
  {
    id: 'tenants.update',
    method: 'PUT',
    path: '/api/tenants/{slug}',
    group: 'tenants',
    auth: { kind: 'bearer', roles: ['TenantOwner'], permission: 'tenants:write' },
    summary:
      'Update a tenant; null or absent fields stay as they are. name, email and phone: its owner or a SystemAdmin; ' +
      'planType and limits: SystemAdmin only (403 otherwise). maxSeats below the seats in use is 409',
    scope: scope.tenant({ tenantFrom: 'slug' }),
    status: 200,
    schemas: () => ({
      params: slugParams(),
      body: z.object({
        name: z.optional(z.nullable(nameText(200))),
        email: z.optional(z.nullable(email())),
        phone: optionalText(40),
        planType: z.optional(z.nullable(planType())),
        maxAgents: z.optional(z.nullable(limit())),
        maxKnowledgeBases: z.optional(z.nullable(limit())),
        maxSeats: z.optional(z.nullable(limit())),
        maxTokensPerMonth: z.optional(z.nullable(z.int().check(z.minimum(0), z.maximum(MAX_TOKENS_PER_MONTH)))),
      }),
      response: tenantDetailSchema(),
    }),
  },
  {
    id: 'tenants.status',
    method: 'PUT',
    path: '/api/tenants/{slug}/status',
    group: 'tenants',
    auth: { kind: 'bearer', roles: ['SystemAdmin'] },
    summary:
      'Change the status (SystemAdmin): ACTIVE, SUSPENDED or CANCELLED; CANCELLED is final (409 CONFLICT); the same ' +
      'status again is a no-op',
    scope: scope.tenant({ tenantFrom: 'slug' }),
    status: 200,
    schemas: () => ({
      params: slugParams(),
      body: z.object({ newStatus: statusName(SETTABLE_TENANT_STATUSES) }),
      response: tenantDetailSchema(),
    }),
  },
  {
    id: 'tenants.invite',
    method: 'POST',
    path: '/api/tenants/{slug}/invitations',
    group: 'tenants',
    auth: { kind: 'bearer', roles: ['TenantOwner'], permission: 'users:write' },
    summary:
      'Invite someone to the tenant with roles that exist in it (its owner or a SystemAdmin); the code is e-mailed, ' +
      'valid 7 days, and used at registration. A full tenant is 409 SEAT_LIMIT_REACHED',
    scope: scope.tenant({ tenantFrom: 'slug' }),
    status: 201,
    errors: [seatLimitReached],
    schemas: () => ({
      params: slugParams(),
      body: z.object({
        email: email(),
        roles: z.array(text(100)).check(z.minLength(1, 'At least one role'), z.maxLength(MAX_ROLES_PER_USER)),
      }),
      response: invitationCreatedSchema(),
    }),
  },
]);
