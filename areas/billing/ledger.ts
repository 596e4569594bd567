import { createHash } from 'node:crypto';
import { bumpCounter, putNew } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import type { TransactItem } from '#shared/data/transact.ts';
import { billingKeys, InvoiceStatus, type InvoiceLine, type ProviderId } from './records.ts';

/**
 * Record builders for money movements: each returns transaction items (the record with its
 * newest-first index keys and its collection counter), so a movement and everything it implies
 * commit together or not at all.
 */

/** A UUID derived from stable parts (a provider event id): a retried event builds the same records. */
export function derivedUuid(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export interface PaymentInput {
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
  failureReason?: string | null;
}

export function newPayment(p: PaymentInput, now: string): TransactItem[] {
  const collection = billingKeys.payments(p.tenantId);
  return [
    putNew({
      ...billingKeys.payment(p.tenantId, p.id),
      ...keys.newestFirst(collection, now, p.id),
      ...p,
      failureReason: p.failureReason ?? null,
      createdAt: now,
      updatedAt: now,
    }),
    bumpCounter(collection, 1),
  ];
}

export interface InvoiceInput {
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
  /** The stored PDF (rendered before the invoice is committed). */
  pdfKey: string | null;
}

export function newInvoice(i: InvoiceInput, now: string): TransactItem[] {
  const collection = billingKeys.invoices(i.tenantId);
  return [
    putNew({
      ...billingKeys.invoice(i.tenantId, i.id),
      ...keys.newestFirst(collection, now, i.id),
      ...i,
      issuedAt: now,
      createdAt: now,
      updatedAt: now,
    }),
    bumpCounter(collection, 1),
  ];
}

export const INVOICE_STATUS_LABEL: Record<number, string> = Object.fromEntries(
  Object.entries(InvoiceStatus).map(([k, v]) => [v, k]),
);
