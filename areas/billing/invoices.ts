import { listNewestFirst } from '#shared/data/collection.ts';
import { tenantName } from '#areas/identity/for-billing.ts';
import { getOr404 } from '#shared/data/read.ts';
import { reply, toPage } from '#shared/http/responses.ts';
import { INVOICE_STATUS_LABEL } from './ledger.ts';
import { invoicePdfKey } from './invoice-objects.ts';
import { billingKeys, toInvoice, toInvoiceDetail, type InvoiceRecord } from './records.ts';

export async function listInvoices(tenantId: string, q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst<InvoiceRecord>(billingKeys.invoices(tenantId), q);
  return toPage(items.map(toInvoice), totalCount, q.page, q.pageSize);
}

async function invoiceOr404(tenantId: string, id: string) {
  const [invoice, tenant] = await Promise.all([
    getOr404<InvoiceRecord>(billingKeys.invoice(tenantId, id), 'Invoice'),
    tenantName(tenantId),
  ]);
  return { invoice, tenantName: tenant ?? '' };
}

export async function invoiceDetail(tenantId: string, id: string) {
  const { invoice, tenantName } = await invoiceOr404(tenantId, id);
  return toInvoiceDetail(invoice, tenantName);
}

/** Streams the stored PDF; one missing from the bucket (lost, or never stored) is rendered again and kept. */
export async function invoicePdf(tenantId: string, id: string) {
  const { invoice, tenantName } = await invoiceOr404(tenantId, id);
  const key = invoice.pdfKey ?? invoicePdfKey(tenantId, id);
  // S3 and the renderer load only for this route.
  const { readInvoicePdf, storeInvoicePdf } = await import('./invoice-pdf.ts');
  let bytes = await readInvoicePdf(key);
  if (!bytes) {
    await storeInvoicePdf({
      id,
      tenantId,
      tenantName,
      planName: invoice.subscriptionPlanName ?? null,
      amountMinor: Number(invoice.amountMinor),
      currency: invoice.currency,
      statusLabel: INVOICE_STATUS_LABEL[Number(invoice.status)] ?? 'Issued',
      issuedAt: String(invoice.issuedAt ?? invoice.createdAt),
      paidAt: invoice.paidAt ?? null,
      items: invoice.items ?? [],
    });
    bytes = (await readInvoicePdf(key))!;
  }
  return reply.raw('application/pdf', bytes.toString('base64'), {
    base64: true,
    headers: { 'content-disposition': `inline; filename="invoice-${id}.pdf"`, 'cache-control': 'private, no-store' },
  });
}
