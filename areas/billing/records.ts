import { keys } from '#shared/data/keys.ts';
import { config } from '#shared/platform/config.ts';
import { toMajor } from './money.ts';

/** Billing enums of the spec. */
export const SubscriptionStatus = { Inactive: 0, Active: 1, Suspended: 2, Trialing: 3, Cancelled: 4 } as const;
export const PaymentStatus = { Pending: 0, Paid: 1, Failed: 2, Refunded: 3 } as const;
export const InvoiceStatus = { Draft: 0, Issued: 1, Paid: 2, Overdue: 3, Cancelled: 4 } as const;
export const PaymentProvider = { A: 1, B: 2 } as const;
export type ProviderId = (typeof PaymentProvider)[keyof typeof PaymentProvider];

export type Item = Record<string, unknown>;

/** Key shapes of the billing records (all built from keys.ts). */
export const billingKeys = {
  subscription: (t: string, id: string) => keys.tenantItem(t, 'SUBSCRIPTION', id),
  /** Points at the tenant's live subscription; its condition keeps one per tenant. */
  current: (t: string) => keys.tenantItem(t, 'BILLING', 'current'),
  /** Present once the tenant has started a trial: a trial is granted once per tenant. */
  trialUsed: (t: string) => keys.tenantItem(t, 'BILLING', 'trial-used'),
  defaultMethod: (t: string) => keys.tenantItem(t, 'BILLING', 'default-method'),
  idempotency: (t: string, scope: string, key: string) => keys.tenantItem(t, 'BILLING', `idempotency#${scope}#${key}`),
  payment: (t: string, id: string) => keys.tenantItem(t, 'PAYMENT', id),
  payments: (t: string) => keys.tenantCollection(t, 'PAYMENT'),
  invoice: (t: string, id: string) => keys.tenantItem(t, 'INVOICE', id),
  invoices: (t: string) => keys.tenantCollection(t, 'INVOICE'),
  method: (t: string, id: string) => keys.tenantItem(t, 'PAYMENT_METHOD', id),
  methods: (t: string) => keys.tenantCollection(t, 'PAYMENT_METHOD'),
};

/** Where an invoice's PDF lives in the invoices bucket, and the address that streams it. */
export const invoicePdfKey = (t: string, invoiceId: string) => `invoices/${t}/${invoiceId}.pdf`;
export const invoicePdfUrl = (invoiceId: string) => `${config.publicBaseUrl}/api/invoices/${invoiceId}/pdf`;

const str = (v: unknown) => (typeof v === 'string' ? v : null);
const money = (i: Item, field = 'amountMinor') => toMajor(Number(i[field] ?? 0), String(i.currency));

export const toPayment = (i: Item) => ({
  id: i.id as string,
  tenantId: i.tenantId as string,
  subscriptionId: str(i.subscriptionId),
  invoiceId: str(i.invoiceId),
  amount: money(i),
  currency: i.currency as string,
  status: Number(i.status),
  provider: Number(i.provider),
  providerReferenceId: str(i.providerReferenceId),
  paidAt: str(i.paidAt),
  createdAt: i.createdAt as string,
});

export const toInvoice = (i: Item) => ({
  id: i.id as string,
  tenantId: i.tenantId as string,
  subscriptionPlanName: str(i.subscriptionPlanName),
  amount: money(i),
  currency: i.currency as string,
  status: Number(i.status),
  dueDate: str(i.dueDate),
  paidAt: str(i.paidAt),
  pdfUrl: i.pdfKey ? invoicePdfUrl(i.id as string) : null,
});

export interface InvoiceLine {
  description: string;
  amountMinor: number;
  quantity: number;
}

export const toInvoiceDetail = (i: Item, tenantName: string) => ({
  ...toInvoice(i),
  tenantName,
  items: ((i.items as InvoiceLine[] | undefined) ?? []).map((l) => ({
    description: l.description,
    amount: toMajor(l.amountMinor, String(i.currency)),
    quantity: l.quantity,
  })),
});

export const toMethod = (i: Item, defaultId: string | null) => ({
  id: i.id as string,
  provider: Number(i.provider),
  isDefault: i.id === defaultId,
  lastFourDigits: str(i.lastFourDigits),
  cardType: str(i.cardType),
  expiryMonth: typeof i.expiryMonth === 'number' ? i.expiryMonth : null,
  expiryYear: typeof i.expiryYear === 'number' ? i.expiryYear : null,
  createdAt: i.createdAt as string,
});

export const toCurrentSubscription = (i: Item, now = Date.now()) => ({
  subscriptionId: i.id as string,
  planId: i.planId as string,
  planName: i.planName as string,
  status: Number(i.status),
  startDate: (str(i.startDate) ?? i.createdAt) as string,
  renewalDate: str(i.renewalDate),
  trialExpiresAt: str(i.trialExpiresAt),
  isTrialActive:
    Number(i.status) === SubscriptionStatus.Trialing &&
    !!i.trialExpiresAt &&
    Date.parse(String(i.trialExpiresAt)) > now,
  billingPeriod: Number(i.billingPeriod),
  price: money(i, 'priceMinor'),
  currency: i.currency as string,
});

/** Adds a billing period (1 monthly, 2 yearly) or days to an ISO instant. */
export function addPeriod(fromIso: string, billingPeriod: number): string {
  const d = new Date(fromIso);
  if (billingPeriod === 2) d.setUTCFullYear(d.getUTCFullYear() + 1);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return d.toISOString();
}
export const addDays = (fromIso: string, days: number) =>
  new Date(Date.parse(fromIso) + days * 86_400_000).toISOString();
