import * as z from 'zod/mini';
import { email, nameText, optionalText, pageOf, paging, searchTerm, text } from './schemas.ts';
import { defineRoutes, once } from './types.ts';

/** Lowercase letters, digits and hyphens, 3-63 characters, no hyphen at either end. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])$/;

/** The numeric `status` of a tenant, by the name the API uses in `statusFilter` and `newStatus`. */
export const TENANT_STATUS_CODES = { PENDING: 0, ACTIVE: 1, SUSPENDED: 2, CANCELLED: 3 } as const;
export type TenantStatusName = keyof typeof TENANT_STATUS_CODES;

/** 1 Starter, 2 Professional, 3 Enterprise. */
export const PLAN_TYPES = [1, 2, 3] as const;

const slug = () =>
  z
    .string()
    .check(
      z.maxLength(63),
      z.regex(
        SLUG_PATTERN,
        'Slug must be 3-63 lowercase letters, digits or hyphens, starting and ending with a letter or digit',
      ),
    );
const limit = () =>
  z.number().check(z.int('Expected a whole number'), z.minimum(0, 'Must not be negative'), z.maximum(1_000_000));
const planType = () =>
  z
    .number()
    .check(
      z.int('Expected a whole number'),
      z.minimum(1, 'planType is 1, 2 or 3'),
      z.maximum(3, 'planType is 1, 2 or 3'),
    );

/** A status name in any letter case; anything else is a validation error. */
const statusName = <const T extends readonly TenantStatusName[]>(allowed: T) =>
  z.pipe(
    z.string().check(z.trim(), z.maxLength(20), z.toUpperCase()),
    z.enum(allowed, `Expected one of ${allowed.join(', ')}`),
  );

export const tenantSummarySchema = once(() =>
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

export const tenantDetailSchema = once(() =>
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
    features: z.object({ aiAgents: z.boolean(), knowledgeBase: z.boolean() }),
    isActive: z.boolean(),
    createdAt: z.string(),
  }),
);

export const invitationCreatedSchema = once(() => z.object({ invitationCode: z.string(), expiresAt: z.string() }));

const slugParams = once(() => z.object({ slug: slug() }));

export const tenantRoutes = defineRoutes([
  {
    id: 'tenants.list',
    method: 'GET',
    path: '/api/tenants',
    group: 'tenants',
    auth: { kind: 'bearer', roles: ['TenantOwner'], permission: 'tenants:write' },
    summary: 'List tenants newest first (SystemAdmin: all; TenantOwner: only its own); `search` matches name and slug',
    status: 200,
    schemas: () => ({
      query: z.object({
        search: searchTerm(),
        planType: z.optional(
          z.pipe(
            z.string().check(z.regex(/^[1-3]$/, 'planType is 1, 2 or 3')),
            z.transform((v: string) => Number(v)),
          ),
        ),
        statusFilter: z.optional(statusName(['PENDING', 'ACTIVE', 'SUSPENDED', 'CANCELLED'])),
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
      'Update a tenant; null or absent fields stay as they are. name, email and phone: its owner or a SystemAdmin; planType and limits: SystemAdmin only (403 otherwise). maxSeats below the seats in use is 409',
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
      'Change the status (SystemAdmin): ACTIVE, SUSPENDED or CANCELLED; CANCELLED is final (409 CONFLICT); the same status again is a no-op',
    status: 200,
    schemas: () => ({
      params: slugParams(),
      body: z.object({ newStatus: statusName(['ACTIVE', 'SUSPENDED', 'CANCELLED']) }),
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
      'Invite someone to the tenant with roles that exist in it (its owner or a SystemAdmin); the code is e-mailed, valid 7 days, and used at registration. A full tenant is 409 SEAT_LIMIT_REACHED',
    status: 201,
    schemas: () => ({
      params: slugParams(),
      body: z.object({
        email: email(),
        roles: z.array(text(100)).check(z.minLength(1, 'At least one role'), z.maxLength(20)),
      }),
      response: invitationCreatedSchema(),
    }),
  },
]);
