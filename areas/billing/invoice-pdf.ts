import { config } from '#shared/platform/config.ts';
import { s3OnFirstUse } from '#shared/platform/s3-on-first-use.ts';
import { formatMoney } from './money.ts';
import { invoicePdfKey } from './invoice-objects.ts';
import type { InvoiceLine } from './records.ts';

export interface InvoiceDocument {
  id: string;
  tenantId: string;
  tenantName: string;
  planName: string | null;
  amountMinor: number;
  currency: string;
  statusLabel: string;
  issuedAt: string;
  paidAt: string | null;
  items: InvoiceLine[];
}

/** Renders the invoice as a one-page PDF. pdf-lib is imported here only, on first render. */
export async function renderInvoicePdf(doc: InvoiceDocument): Promise<Uint8Array> {
  const { PDFDocument, StandardFonts, rgb } = await import('pdf-lib');
  const pdf = await PDFDocument.create();
  pdf.setTitle(`Invoice ${doc.id}`);
  pdf.setCreationDate(new Date(doc.issuedAt));
  pdf.setModificationDate(new Date(doc.issuedAt));
  const page = pdf.addPage([595, 842]);
  const [regular, bold] = await Promise.all([
    pdf.embedFont(StandardFonts.Helvetica),
    pdf.embedFont(StandardFonts.HelveticaBold),
  ]);
  // Standard fonts cover WinAnsi only: anything else is replaced rather than failing the render.
  const safe = (s: string) => s.replace(/[^\x20-\x7e\u00a0-\u00ff]/g, '?');
  let y = 790;
  const line = (text: string, opts: { size?: number; font?: typeof regular; x?: number } = {}) => {
    page.drawText(safe(text), {
      x: opts.x ?? 50,
      y,
      size: opts.size ?? 11,
      font: opts.font ?? regular,
      color: rgb(0.1, 0.1, 0.1),
    });
  };
  line('INVOICE', { size: 22, font: bold });
  y -= 30;
  line(`Invoice ${doc.id}`);
  y -= 16;
  line(`Billed to: ${doc.tenantName}`);
  y -= 16;
  line(
    `Issued: ${doc.issuedAt.slice(0, 10)}${doc.paidAt ? `   Paid: ${doc.paidAt.slice(0, 10)}` : ''}   Status: ${doc.statusLabel}`,
  );
  if (doc.planName) {
    y -= 16;
    line(`Plan: ${doc.planName}`);
  }
  y -= 36;
  line('Description', { font: bold });
  line('Qty', { font: bold, x: 380 });
  line('Amount', { font: bold, x: 450 });
  for (const item of doc.items) {
    y -= 18;
    line(item.description.slice(0, 60));
    line(String(item.quantity), { x: 380 });
    line(formatMoney(item.amountMinor, doc.currency), { x: 450 });
  }
  y -= 30;
  line('Total', { font: bold });
  line(formatMoney(doc.amountMinor, doc.currency), { font: bold, x: 450 });
  return pdf.save();
}

/** Renders and stores the PDF (idempotent: the same invoice always lands on the same key). */
export async function storeInvoicePdf(doc: InvoiceDocument): Promise<string> {
  const key = invoicePdfKey(doc.tenantId, doc.id);
  const body = await renderInvoicePdf(doc);
  const { sdk, client } = await s3OnFirstUse();
  await client.send(
    new sdk.PutObjectCommand({ Bucket: config.invoiceBucket, Key: key, Body: body, ContentType: 'application/pdf' }),
  );
  return key;
}

/** The stored PDF's bytes, or null when it is not there. */
export async function readInvoicePdf(key: string): Promise<Buffer | null> {
  try {
    const { sdk, client } = await s3OnFirstUse();
    const out = await client.send(new sdk.GetObjectCommand({ Bucket: config.invoiceBucket, Key: key }));
    return Buffer.from(await out.Body!.transformToByteArray());
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchKey') return null;
    throw err;
  }
}
