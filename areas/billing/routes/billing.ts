import * as z from 'zod/mini';
import { CURRENCY_PATTERN } from '#areas/billing/money.ts';
import {
  BillingPeriod,
  MAX_TRIAL_DAYS,
  MAX_TRIAL_EXTENSION_DAYS,
  METHOD_LIMIT,
  MONEY_REQUESTS_PER_MINUTE,
  PaymentProvider,
  PaymentStatus,
  rangeOf,
  SubscriptionStatus,
} from '#areas/billing/vocabulary.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { pageOf, paging, text, uuid } from '#shared/routes/schemas.ts';
import {
  idempotencyKeyReused,
  idempotencyRequestInProgress,
  invalidIdempotencyKey,
  limitReached,
  notTrialing,
  paymentMethodDeclined,
  paymentNotRefundable,
  paymentsNotConfigured,
  refundAlreadyRequested,
  subscriptionCancelled,
  subscriptionExists,
} from '#areas/billing/errors.ts';
import { notFound } from '#shared/http/errors.ts';

/** Billing: plans, subscriptions, payments, payment methods, invoices, admin billing, provider webhooks. */
const read = { kind: 'bearer', permission: 'billing:read' } as const;
const manage = { kind: 'bearer', permission: 'billing:manage' } as const;
const ownerOrMember = { kind: 'bearer', roles: ['TenantOwner', 'TenantMember'], permission: 'billing:read' } as const;
const owner = { kind: 'bearer', roles: ['TenantOwner'] } as const;
const systemAdmin = { kind: 'bearer', roles: ['SystemAdmin'] } as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));
/** The tenant of the caller (or the one a SystemAdmin names in `query.tenantId` / `body.tenantId`). */
const ofQuery = scope.tenant({ tenantFrom: 'query' });
const ofBody = scope.tenant({ tenantFrom: 'body' });
const MONEY_LIMIT = { name: 'billing-money', limit: MONEY_REQUESTS_PER_MINUTE, windowSeconds: 60 } as const;

/** An int within an enum's values. */
const enumInt = (e: Readonly<Record<string, number>>) => {
  const { min, max } = rangeOf(e);
  return z.int().check(z.minimum(min), z.maximum(max));
};
/** A query parameter holding one of an enum's values. */
const enumQuery = (e: Readonly<Record<string, number>>) =>
  z.optional(
    z.pipe(
      z.string().check(z.regex(/^\d{1,2}$/, 'Expected a whole number')),
      z.pipe(
        z.transform((v: string) => Number(v)),
        enumInt(e),
      ),
    ),
  );
const DATE_QUERY = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
/** The calendar day exists (no 2026-02-30) and the instant parses; never throws, whatever the string. */
const isCalendarDate = (v: string) => {
  if (!DATE_QUERY.test(v)) return false;
  const day = new Date(`${v.slice(0, 10)}T00:00:00Z`);
  return (
    !Number.isNaN(day.getTime()) &&
    day.toISOString().startsWith(v.slice(0, 10)) &&
    !Number.isNaN(Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v))
  );
};
/** `2026-01-31` (whole day, UTC) or a full ISO date-time. */
const dateQuery = () =>
  z.optional(z.string().check(z.refine(isCalendarDate, 'Expected a calendar date (YYYY-MM-DD) or an ISO date-time')));
const currency = () =>
  z.string().check(z.regex(CURRENCY_PATTERN, 'Expected an ISO 4217 currency code (three capital letters)'));

const features = once(() =>
  z.object({
    maxAgents: z.number(),
    maxKnowledgeBases: z.number(),
    maxWidgetIntegrations: z.number(),
    maxTokensPerMonth: z.number(),
    hasPrioritySupport: z.boolean(),
    hasDedicatedSupport: z.boolean(),
    customDomainEnabled: z.boolean(),
    aiAgentsEnabled: z.boolean(),
    riskAssessmentEnabled: z.boolean(),
  }),
);
const plan = once(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    code: z.string(),
    type: z.number(),
    price: z.number(),
    currency: z.string(),
    billingPeriod: z.number(),
    features: features(),
    isTrialEligible: z.boolean(),
    trialDays: z.number(),
    isActive: z.boolean(),
    createdAt: z.string(),
  }),
);
const currentSubscription = once(() =>
  z.object({
    subscriptionId: z.string(),
    planId: z.string(),
    planName: z.string(),
    status: z.number(),
    startDate: z.string(),
    renewalDate: z.nullable(z.string()),
    trialExpiresAt: z.nullable(z.string()),
    isTrialActive: z.boolean(),
    billingPeriod: z.number(),
    price: z.number(),
    currency: z.string(),
  }),
);
const payment = once(() =>
  z.object({
    id: z.string(),
    tenantId: z.string(),
    subscriptionId: z.nullable(z.string()),
    invoiceId: z.nullable(z.string()),
    amount: z.number(),
    currency: z.string(),
    status: z.number(),
    provider: z.number(),
    providerReferenceId: z.nullable(z.string()),
    paidAt: z.nullable(z.string()),
    createdAt: z.string(),
  }),
);
const method = once(() =>
  z.object({
    id: z.string(),
    provider: z.number(),
    isDefault: z.boolean(),
    lastFourDigits: z.nullable(z.string()),
    cardType: z.nullable(z.string()),
    expiryMonth: z.nullable(z.number()),
    expiryYear: z.nullable(z.number()),
    createdAt: z.string(),
  }),
);
const invoice = once(() =>
  z.object({
    id: z.string(),
    tenantId: z.string(),
    subscriptionPlanName: z.nullable(z.string()),
    amount: z.number(),
    currency: z.string(),
    status: z.number(),
    dueDate: z.nullable(z.string()),
    paidAt: z.nullable(z.string()),
    pdfUrl: z.nullable(z.string()),
  }),
);
const invoiceDetail = once(() =>
  z.extend(invoice(), {
    tenantName: z.string(),
    items: z.array(z.object({ description: z.string(), amount: z.number(), quantity: z.number() })),
  }),
);
const adminItem = once(() =>
  z.object({
    id: z.string(),
    tenantId: z.string(),
    tenantName: z.string(),
    planName: z.string(),
    status: z.number(),
    price: z.number(),
    renewalDate: z.nullable(z.string()),
  }),
);
/** The header the money-moving writes honour (areas/billing/idempotency.ts). */
const idempotencyHeader = [
  {
    name: 'Idempotency-Key',
    description: 'Same key and body: the first answer again; same key, other body: 409 IDEMPOTENCY_KEY_REUSED',
    pattern: '^[\\x21-\\x7e]{1,200}$',
  },
] as const;
const idempotencyNote =
  ' Honours an `Idempotency-Key` header (same key and body: the first answer again; same key, other body: 409 IDEMPOTENCY_KEY_REUSED).';

export const billingRoutes = defineRoutes([
  {
    id: 'billing.plans',
    method: 'GET',
    path: '/api/subscriptions/plans',
    group: 'billing',
    auth: { kind: 'bearer' },
    summary: 'Active subscription plans (one per plan type and billing period), cache-first',
    scope: scope.platform,
    status: 200,
    schemas: () => ({
      response: z.array(plan()),
    }),
  },
  {
    id: 'billing.subscriptions.current',
    method: 'GET',
    path: '/api/subscriptions/current',
    group: 'billing',
    auth: ownerOrMember,
    summary: "The tenant's current subscription (404 when it has none)",
    scope: ofQuery,
    status: 200,
    errors: [notFound],
    schemas: () => ({
      query: z.object(tenantQuery()),
      response: currentSubscription(),
    }),
  },
  {
    id: 'billing.subscriptions.create',
    headers: idempotencyHeader,
    method: 'POST',
    path: '/api/subscriptions',
    group: 'billing',
    auth: owner,
    summary:
      'Start a subscription (tenant owner): answers PENDING with the provider checkout address; the checkout webhook activates it or starts the trial. One live subscription per tenant (409).' +
      idempotencyNote,
    scope: ofBody,
    status: 201,
    errors: [
      invalidIdempotencyKey,
      idempotencyKeyReused,
      idempotencyRequestInProgress,
      subscriptionExists,
      paymentsNotConfigured,
    ],
    rateLimit: MONEY_LIMIT,
    schemas: () => ({
      body: z.object({
        planId: uuid(),
        billingPeriod: enumInt(BillingPeriod),
        trialDays: z.optional(z.nullable(z.int().check(z.minimum(0), z.maximum(MAX_TRIAL_DAYS)))),
        tenantId: z.optional(uuid()),
      }),
      response: z.object({ subscriptionId: z.string(), checkoutUrl: z.string(), status: z.string() }),
    }),
  },
  {
    id: 'billing.payments.process',
    headers: idempotencyHeader,
    method: 'POST',
    path: '/api/payments/process',
    group: 'billing',
    auth: manage,
    summary:
      'Charge an amount against a subscription: with a stored `paymentMethodId` the provider charges it (no checkout address), otherwise a checkout address is returned. Answers PENDING; the provider webhook settles it.' +
      idempotencyNote,
    scope: ofBody,
    status: 200,
    errors: [
      notFound,
      invalidIdempotencyKey,
      idempotencyKeyReused,
      idempotencyRequestInProgress,
      subscriptionCancelled,
      paymentsNotConfigured,
    ],
    rateLimit: MONEY_LIMIT,
    schemas: () => ({
      body: z.object({
        subscriptionId: uuid(),
        amount: z.number(),
        currency: currency(),
        paymentMethodId: z.optional(z.nullable(uuid())),
        description: z.optional(z.nullable(text(200))),
        tenantId: z.optional(uuid()),
      }),
      response: z.object({
        paymentId: z.string(),
        status: z.string(),
        checkoutUrl: z.nullable(z.string()),
        expiresAt: z.nullable(z.string()),
      }),
    }),
  },
  {
    id: 'billing.payments.history',
    method: 'GET',
    path: '/api/payments/history',
    group: 'billing',
    auth: read,
    summary:
      'Payments newest first; `startDate`/`endDate` bound createdAt (inclusive days), `statusFilter` a PaymentStatus',
    scope: ofQuery,
    status: 200,
    schemas: () => ({
      query: z.object({
        ...tenantQuery(),
        ...paging(),
        startDate: dateQuery(),
        endDate: dateQuery(),
        statusFilter: enumQuery(PaymentStatus),
      }),
      response: pageOf(payment()),
    }),
  },
  {
    id: 'billing.payments.refund',
    headers: idempotencyHeader,
    method: 'POST',
    path: '/api/payments/{paymentId}/refund',
    group: 'billing',
    auth: manage,
    summary:
      "Ask the provider to refund a Paid payment (once; 409 otherwise): 202 with the payment, which becomes Refunded when the provider's confirmation arrives." +
      idempotencyNote,
    scope: scope.tenant({
      tenantFrom: 'query',
      record: { param: 'paymentId', collection: 'PAYMENT', label: 'Payment' },
    }),
    status: 202,
    errors: [
      invalidIdempotencyKey,
      idempotencyKeyReused,
      idempotencyRequestInProgress,
      paymentNotRefundable,
      refundAlreadyRequested,
      paymentsNotConfigured,
    ],
    rateLimit: MONEY_LIMIT,
    schemas: () => ({
      params: z.object({ paymentId: uuid() }),
      query: z.object(tenantQuery()),
      body: z.object({ reason: text(500) }),
      response: payment(),
    }),
  },
  {
    id: 'billing.methods.list',
    method: 'GET',
    path: '/api/payment-methods',
    group: 'billing',
    auth: read,
    summary: "The tenant's stored payment methods, the default first",
    scope: ofQuery,
    status: 200,
    schemas: () => ({ query: z.object(tenantQuery()), response: z.array(method()) }),
  },
  {
    id: 'billing.methods.add',
    method: 'POST',
    path: '/api/payment-methods',
    group: 'billing',
    auth: manage,
    summary: `Store a payment method from a provider token (the tenant's first becomes the default; at most ${METHOD_LIMIT}, 409 LIMIT_REACHED); a declined token is 400 PAYMENT_METHOD_DECLINED`,
    scope: ofBody,
    status: 201,
    errors: [limitReached, paymentMethodDeclined, paymentsNotConfigured],
    rateLimit: MONEY_LIMIT,
    schemas: () => ({
      body: z.object({
        provider: enumInt(PaymentProvider),
        token: text(200),
        tenantId: z.optional(uuid()),
      }),
      response: method(),
    }),
  },
  {
    id: 'billing.methods.setDefault',
    method: 'PUT',
    path: '/api/payment-methods/{paymentMethodId}/set-default',
    group: 'billing',
    auth: manage,
    summary: 'Make this method the default (exactly one per tenant)',
    scope: scope.tenant({
      tenantFrom: 'query',
      record: { param: 'paymentMethodId', collection: 'PAYMENT_METHOD', label: 'Payment method' },
    }),
    status: 200,
    schemas: () => ({
      params: z.object({ paymentMethodId: uuid() }),
      query: z.object(tenantQuery()),
      response: method(),
    }),
  },
  {
    id: 'billing.methods.delete',
    method: 'DELETE',
    path: '/api/payment-methods/{paymentMethodId}',
    group: 'billing',
    auth: manage,
    summary: 'Remove a stored method; when it was the default, the newest remaining one becomes the default',
    scope: scope.tenant({
      tenantFrom: 'query',
      record: { param: 'paymentMethodId', collection: 'PAYMENT_METHOD', label: 'Payment method' },
    }),
    status: 204,
    schemas: () => ({
      params: z.object({ paymentMethodId: uuid() }),
      query: z.object(tenantQuery()),
    }),
  },
  {
    id: 'billing.invoices.list',
    method: 'GET',
    path: '/api/invoices',
    group: 'billing',
    auth: read,
    summary: 'Invoices newest first',
    scope: ofQuery,
    status: 200,
    schemas: () => ({ query: z.object({ ...tenantQuery(), ...paging() }), response: pageOf(invoice()) }),
  },
  {
    id: 'billing.invoices.get',
    method: 'GET',
    path: '/api/invoices/{invoiceId}',
    group: 'billing',
    auth: read,
    summary: 'Invoice detail with items and tenant name',
    scope: scope.tenant({
      tenantFrom: 'query',
      record: { param: 'invoiceId', collection: 'INVOICE', label: 'Invoice' },
    }),
    status: 200,
    schemas: () => ({
      params: z.object({ invoiceId: uuid() }),
      query: z.object(tenantQuery()),
      response: invoiceDetail(),
    }),
  },
  {
    id: 'billing.invoices.pdf',
    method: 'GET',
    path: '/api/invoices/{invoiceId}/pdf',
    group: 'billing',
    auth: read,
    summary: 'The invoice as a PDF, rendered once when issued and streamed from the invoices bucket',
    scope: scope.tenant({
      tenantFrom: 'query',
      record: { param: 'invoiceId', collection: 'INVOICE', label: 'Invoice' },
    }),
    status: 200,
    rawResponse: { contentType: 'application/pdf' },
    schemas: () => ({
      params: z.object({ invoiceId: uuid() }),
      query: z.object(tenantQuery()),
    }),
  },
  {
    id: 'billing.admin.subscriptions',
    method: 'GET',
    path: '/api/admin/billing/subscriptions',
    group: 'billing',
    auth: systemAdmin,
    summary:
      "Every tenant's subscriptions newest first, with tenant names; `statusFilter` a SubscriptionStatus (SystemAdmin)",
    scope: scope.platform,
    status: 200,
    schemas: () => ({
      query: z.object({ ...paging(), statusFilter: enumQuery(SubscriptionStatus) }),
      response: pageOf(adminItem()),
    }),
  },
  {
    id: 'billing.admin.extendTrial',
    method: 'PUT',
    path: '/api/admin/billing/subscriptions/{tenantId}/extend-trial',
    group: 'billing',
    auth: systemAdmin,
    summary: `Extend a trialing subscription's trial by 1-${MAX_TRIAL_EXTENSION_DAYS} days (409 NOT_TRIALING when the tenant's subscription is not trialing) (SystemAdmin)`,
    scope: scope.platform,
    status: 200,
    errors: [notTrialing],
    schemas: () => ({
      params: z.object({ tenantId: uuid() }),
      body: z.object({ additionalDays: z.int().check(z.minimum(1), z.maximum(MAX_TRIAL_EXTENSION_DAYS)) }),
      response: currentSubscription(),
    }),
  },
]);
