/**
 * Where an invoice's PDF lives in the invoices bucket. Its own module, without imports: the PDF
 * renderer (invoice-pdf.ts) is loaded with `import()`, and a module graph both imported and
 * `import()`ed is wrapped by esbuild whole, which would keep every export of the DynamoDB client.
 */
export const invoicePdfKey = (tenantId: string, invoiceId: string) => `invoices/${tenantId}/${invoiceId}.pdf`;
