import { keys } from '#shared/data/keys.ts';
import { getItem, listNewestFirst } from '#shared/data/collection.ts';
import { INVOICE_STATUS_LABEL } from './ledger.ts';
import { billingKeys, invoicePdfKey, toInvoice, toInvoiceDetail, type InvoiceLine, type Item } from './records.ts';
import { notFound } from '#shared/http/errors.ts';
import { reply, toPage } from '#shared/http/responses.ts';

const read = (key: { pk: string; sk: string }) => getItem<Item>(key);

export async function listInvoices(t: string, q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst<Item>(billingKeys.invoices(t), q);
  return toPage(items.map(toInvoice), totalCount, q.page, q.pageSize);
}

async function invoiceOr404(t: string, id: string) {
  const [invoice, tenant] = await Promise.all([read(billingKeys.invoice(t, id)), read(keys.platformItem('TENANT', t))]);
  if (!invoice) throw notFound('Invoice');
  return { invoice, tenantName: String(tenant?.name ?? '') };
}

export async function invoiceDetail(t: string, id: string) {
  const { invoice, tenantName } = await invoiceOr404(t, id);
  return toInvoiceDetail(invoice, tenantName);
}

/** Streams the stored PDF; one missing from the bucket (lost, or never stored) is rendered again and kept. */
export async function invoicePdf(t: string, id: string) {
  const { invoice, tenantName } = await invoiceOr404(t, id);
  const key = String(invoice.pdfKey ?? invoicePdfKey(t, id));
  // S3 and the renderer load only for this route.
  const { readInvoicePdf, storeInvoicePdf } = await import('./invoice-pdf.ts');
  let bytes = await readInvoicePdf(key);
  if (!bytes) {
    await storeInvoicePdf({
      id,
      tenantId: t,
      tenantName,
      planName: (invoice.subscriptionPlanName as string | null) ?? null,
      amountMinor: Number(invoice.amountMinor),
      currency: String(invoice.currency),
      statusLabel: INVOICE_STATUS_LABEL[Number(invoice.status)] ?? 'Issued',
      issuedAt: String(invoice.issuedAt ?? invoice.createdAt),
      paidAt: (invoice.paidAt as string | null) ?? null,
      items: (invoice.items as InvoiceLine[] | undefined) ?? [],
    });
    bytes = (await readInvoicePdf(key))!;
  }
  return reply.raw('application/pdf', bytes.toString('base64'), {
    base64: true,
    headers: { 'content-disposition': `inline; filename="invoice-${id}.pdf"`, 'cache-control': 'private, no-store' },
  });
}
