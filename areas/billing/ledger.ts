import { createHash } from 'node:crypto';
import { bumpCounter } from '#shared/data/collection.ts';
import { putNew, type TransactItem } from '#shared/data/commit.ts';
import { billingKeys, invoiceItem, paymentItem, type InvoiceRecord, type PaymentRecord } from './records.ts';
import { InvoiceStatus } from './vocabulary.ts';

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

export type PaymentInput = Omit<PaymentRecord, 'createdAt' | 'updatedAt' | 'failureReason'> & {
  failureReason?: string | null;
};

export function newPayment(p: PaymentInput, now: string): TransactItem[] {
  return [
    putNew(paymentItem({ ...p, failureReason: p.failureReason ?? null }, now)),
    bumpCounter(billingKeys.payments(p.tenantId), 1),
  ];
}

export type InvoiceInput = Omit<InvoiceRecord, 'issuedAt' | 'createdAt'>;

export function newInvoice(i: InvoiceInput, now: string): TransactItem[] {
  return [putNew(invoiceItem(i, now)), bumpCounter(billingKeys.invoices(i.tenantId), 1)];
}

export const INVOICE_STATUS_LABEL: Record<number, string> = Object.fromEntries(
  Object.entries(InvoiceStatus).map(([k, v]) => [v, k]),
);
