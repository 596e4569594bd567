import { keys, type Key } from '#shared/data/keys.ts';
import { config } from '#shared/platform/config.ts';
import { toMajor } from './money.ts';
import { SubscriptionStatus, type ProviderId } from './vocabulary.ts';

/**
 * Billing's records: every key shape, the stored types and the item <-> API mappers of
 * subscriptions, payments, invoices, payment methods, the tenant's billing pointers, idempotency
 * keys and provider event markers. Tenant-owned partitions begin with the tenant id (keys.ts).
 */

const ITEM_SK = 'ITEM';

export const billingKeys = {
  subscription: (tenantId: string, id: string) => keys.tenantItem(tenantId, 'SUBSCRIPTION', id),
  /** Points at the tenant's live subscription; its condition keeps one per tenant. */
  current: (tenantId: string) => keys.tenantItem(tenantId, 'BILLING', 'current'),
  /** Present once the tenant has started a trial: a trial is granted once per tenant. */
  trialUsed: (tenantId: string) => keys.tenantItem(tenantId, 'BILLING', 'trial-used'),
  defaultMethod: (tenantId: string) => keys.tenantItem(tenantId, 'BILLING', 'default-method'),
  idempotency: (tenantId: string, scope: string, key: string) =>
    keys.tenantItem(tenantId, 'BILLING', `idempotency#${scope}#${key}`),
  payment: (tenantId: string, id: string) => keys.tenantItem(tenantId, 'PAYMENT', id),
  payments: (tenantId: string) => keys.tenantCollection(tenantId, 'PAYMENT'),
  invoice: (tenantId: string, id: string) => keys.tenantItem(tenantId, 'INVOICE', id),
  invoices: (tenantId: string) => keys.tenantCollection(tenantId, 'INVOICE'),
  method: (tenantId: string, id: string) => keys.tenantItem(tenantId, 'PAYMENT_METHOD', id),
  methods: (tenantId: string) => keys.tenantCollection(tenantId, 'PAYMENT_METHOD'),
  /** How many methods the tenant stores: the limit is a condition on this counter. */
  methodCount: (tenantId: string) => keys.counter(keys.tenantCollection(tenantId, 'PAYMENT_METHOD')),
  /** gsi2 partition of every tenant's subscriptions (administrator billing list), newest first. */
  allSubscriptions: () => `${keys.platformCollection('PLAN')}#SUBSCRIPTIONS`,
  /** Webhook idempotency: one marker per provider event id, written with the event's changes. */
  webhookEvent: (provider: string, eventId: string): Key => ({ pk: `WH#${provider}#${eventId}`, sk: ITEM_SK }),
};

/** The subscription's place in the administrator's list (gsi2, newest first). */
const subscriptionIndex = (createdAt: string, id: string) => ({
  gsi2pk: billingKeys.allSubscriptions(),
  gsi2sk: `${createdAt}#${id}`,
});

/** The address that streams an invoice's PDF. */
const invoicePdfUrl = (invoiceId: string) => `${config.publicBaseUrl}/api/invoices/${invoiceId}/pdf`;

/** A subscription as stored (`{t}#SUBSCRIPTION`, sk its id). */
export interface SubscriptionRecord {
  id: string;
  tenantId: string;
  planId: string;
  planName: string;
  planType: number;
  billingPeriod: number;
  priceMinor: number;
  currency: string;
  status: number;
  /** Waiting for its first checkout (answered as PENDING). */
  awaitingCheckout: boolean;
  provider: ProviderId;
  checkoutSessionId: string;
  checkoutExpiresAt: string;
  trialDays: number;
  startDate: string | null;
  renewalDate: string | null;
  trialExpiresAt: string | null;
  cancelledAt?: string;
  createdAt: string;
  updatedAt: string;
}

/** The tenant's `current` pointer: which subscription is live (or pending, or was cancelled). */
export interface CurrentPointer {
  subscriptionId: string;
  state: 'pending' | 'live' | 'cancelled';
  checkoutExpiresAt?: string;
  updatedAt: string;
}

/** A payment as stored (`{t}#PAYMENT`). */
export interface PaymentRecord {
  id: string;
  tenantId: string;
  subscriptionId: string | null;
  invoiceId: string | null;
  amountMinor: number;
  currency: string;
  status: number;
  provider: ProviderId;
  providerReferenceId: string | null;
  paidAt: string | null;
  description: string | null;
  failureReason: string | null;
  /** The charge of a subscription period (first period or renewal): refunding it ends the subscription. */
  periodCharge?: boolean;
  refundRequestedAt?: string;
  refundReason?: string;
  refundedAt?: string;
  createdAt: string;
  updatedAt: string;
}

export interface InvoiceLine {
  description: string;
  amountMinor: number;
  quantity: number;
}

/** An invoice as stored (`{t}#INVOICE`). */
export interface InvoiceRecord {
  id: string;
  tenantId: string;
  subscriptionId: string | null;
  subscriptionPlanName: string | null;
  paymentId: string | null;
  amountMinor: number;
  currency: string;
  status: number;
  dueDate: string | null;
  paidAt: string | null;
  items: InvoiceLine[];
  pdfKey: string | null;
  issuedAt: string;
  createdAt: string;
}

/** A stored payment method (`{t}#PAYMENT_METHOD`). */
export interface MethodRecord {
  id: string;
  tenantId: string;
  provider: number;
  providerMethodId: string;
  lastFourDigits: string;
  cardType: string;
  expiryMonth: number;
  expiryYear: number;
  createdAt: string;
}

/** Newest-first index keys of a payment or invoice. */
export const paymentItem = (p: Omit<PaymentRecord, 'createdAt' | 'updatedAt'>, now: string) => ({
  ...billingKeys.payment(p.tenantId, p.id),
  ...keys.newestFirst(billingKeys.payments(p.tenantId), now, p.id),
  ...p,
  createdAt: now,
  updatedAt: now,
});

export const invoiceItem = (i: Omit<InvoiceRecord, 'issuedAt' | 'createdAt'>, now: string) => ({
  ...billingKeys.invoice(i.tenantId, i.id),
  ...keys.newestFirst(billingKeys.invoices(i.tenantId), now, i.id),
  ...i,
  issuedAt: now,
  createdAt: now,
  updatedAt: now,
});

export const subscriptionItem = (s: SubscriptionRecord) => ({
  ...billingKeys.subscription(s.tenantId, s.id),
  ...subscriptionIndex(s.createdAt, s.id),
  ...s,
});

export const methodItem = (m: MethodRecord) => ({ ...billingKeys.method(m.tenantId, m.id), ...m });

export const pointerItem = (tenantId: string, pointer: CurrentPointer) => ({
  ...billingKeys.current(tenantId),
  ...pointer,
});

export const defaultMethodItem = (tenantId: string, methodId: string, now: string) => ({
  ...billingKeys.defaultMethod(tenantId),
  methodId,
  updatedAt: now,
});

const str = (v: unknown) => (typeof v === 'string' ? v : null);

export const toPayment = (p: PaymentRecord) => ({
  id: p.id,
  tenantId: p.tenantId,
  subscriptionId: str(p.subscriptionId),
  invoiceId: str(p.invoiceId),
  amount: toMajor(Number(p.amountMinor ?? 0), p.currency),
  currency: p.currency,
  status: Number(p.status),
  provider: Number(p.provider),
  providerReferenceId: str(p.providerReferenceId),
  paidAt: str(p.paidAt),
  createdAt: p.createdAt,
});

export const toInvoice = (i: InvoiceRecord) => ({
  id: i.id,
  tenantId: i.tenantId,
  subscriptionPlanName: str(i.subscriptionPlanName),
  amount: toMajor(Number(i.amountMinor ?? 0), i.currency),
  currency: i.currency,
  status: Number(i.status),
  dueDate: str(i.dueDate),
  paidAt: str(i.paidAt),
  pdfUrl: i.pdfKey ? invoicePdfUrl(i.id) : null,
});

export const toInvoiceDetail = (i: InvoiceRecord, tenantName: string) => ({
  ...toInvoice(i),
  tenantName,
  items: (i.items ?? []).map((l) => ({
    description: l.description,
    amount: toMajor(l.amountMinor, i.currency),
    quantity: l.quantity,
  })),
});

export const toMethod = (m: MethodRecord, defaultId: string | null) => ({
  id: m.id,
  provider: Number(m.provider),
  isDefault: m.id === defaultId,
  lastFourDigits: str(m.lastFourDigits),
  cardType: str(m.cardType),
  expiryMonth: typeof m.expiryMonth === 'number' ? m.expiryMonth : null,
  expiryYear: typeof m.expiryYear === 'number' ? m.expiryYear : null,
  createdAt: m.createdAt,
});

export const toCurrentSubscription = (s: SubscriptionRecord, now = Date.now()) => ({
  subscriptionId: s.id,
  planId: s.planId,
  planName: s.planName,
  status: Number(s.status),
  startDate: str(s.startDate) ?? s.createdAt,
  renewalDate: str(s.renewalDate),
  trialExpiresAt: str(s.trialExpiresAt),
  isTrialActive:
    Number(s.status) === SubscriptionStatus.Trialing && !!s.trialExpiresAt && Date.parse(s.trialExpiresAt) > now,
  billingPeriod: Number(s.billingPeriod),
  price: toMajor(Number(s.priceMinor ?? 0), s.currency),
  currency: s.currency,
});

export const toAdminSubscription = (s: SubscriptionRecord, tenantName: string) => ({
  id: s.id,
  tenantId: s.tenantId,
  tenantName,
  planName: s.planName,
  status: Number(s.status),
  price: toMajor(Number(s.priceMinor ?? 0), s.currency),
  renewalDate: str(s.renewalDate),
});
