import type { Principal } from '#shared/auth/access-token.ts';
import { scopeRecord, scopeTenant } from '#shared/auth/tenant-scope.ts';
import type { TenantCollection } from '#shared/data/keys.ts';
import { reply } from '#shared/http/responses.ts';
import { billingRoutes } from '#shared/routes/billing.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { idempotent } from '#areas/billing/idempotency.ts';
import { invoiceDetail, invoicePdf, listInvoices } from '#areas/billing/invoices.ts';
import { addMethod, deleteMethod, listMethods, setDefault } from '#areas/billing/methods.ts';
import { activePlans, PLAN_CACHE_SECONDS } from '#areas/billing/plans.ts';
import { paymentHistory, processPayment, requestRefund } from '#areas/billing/payments.ts';
import {
  adminSubscriptions,
  createSubscription,
  currentSubscription,
  extendTrial,
} from '#areas/billing/subscriptions.ts';

const byId =
  (collection: TenantCollection, label: string) => (p: Principal, tenantId: string | undefined, id: string) =>
    scopeRecord(p, tenantId, { collection, id: id.toLowerCase(), label });
const ofPayment = byId('PAYMENT', 'Payment');
const ofMethod = byId('PAYMENT_METHOD', 'Payment method');
const ofInvoice = byId('INVOICE', 'Invoice');
const idempotencyKey = (headers: Record<string, string | undefined>) =>
  headers['idempotency-key'] ?? headers['Idempotency-Key'];

export const handler = apiHandler(billingRoutes, {
  'billing.plans': async () =>
    reply.json(await activePlans(), { headers: { 'cache-control': `private, max-age=${PLAN_CACHE_SECONDS}` } }),
  'billing.subscriptions.current': async ({ principal, query }) =>
    await currentSubscription(await scopeTenant(principal!, query.tenantId)),
  'billing.subscriptions.create': async ({ principal, body, headers }) => {
    const { tenantId, ...input } = body;
    const t = await scopeTenant(principal!, tenantId, 'body.tenantId');
    return idempotent(
      t,
      'subscriptions',
      idempotencyKey(headers),
      body,
      async () => await createSubscription(t, input, principal!),
    );
  },
  'billing.payments.process': async ({ principal, body, headers }) => {
    const { tenantId, ...input } = body;
    const t = await scopeTenant(principal!, tenantId, 'body.tenantId');
    return idempotent(
      t,
      'payments',
      idempotencyKey(headers),
      body,
      async () => await processPayment(t, input, principal!),
    );
  },
  'billing.payments.history': async ({ principal, query }) =>
    await paymentHistory(await scopeTenant(principal!, query.tenantId), query),
  'billing.payments.refund': async ({ principal, params, query, body, headers }) => {
    const t = await ofPayment(principal!, query.tenantId, params.paymentId);
    const id = params.paymentId.toLowerCase();
    return idempotent(
      t,
      `refund#${id}`,
      idempotencyKey(headers),
      body,
      async () => await requestRefund(t, id, body.reason, principal!),
    );
  },
  'billing.methods.list': async ({ principal, query }) =>
    await listMethods(await scopeTenant(principal!, query.tenantId)),
  'billing.methods.add': async ({ principal, body }) => {
    const { tenantId, ...input } = body;
    return await addMethod(await scopeTenant(principal!, tenantId, 'body.tenantId'), input, principal!);
  },
  'billing.methods.setDefault': async ({ principal, params, query }) =>
    await setDefault(
      await ofMethod(principal!, query.tenantId, params.paymentMethodId),
      params.paymentMethodId.toLowerCase(),
      principal!,
    ),
  'billing.methods.delete': async ({ principal, params, query }) => {
    await deleteMethod(
      await ofMethod(principal!, query.tenantId, params.paymentMethodId),
      params.paymentMethodId.toLowerCase(),
      principal!,
    );
  },
  'billing.invoices.list': async ({ principal, query }) =>
    await listInvoices(await scopeTenant(principal!, query.tenantId), query),
  'billing.invoices.get': async ({ principal, params, query }) =>
    await invoiceDetail(await ofInvoice(principal!, query.tenantId, params.invoiceId), params.invoiceId.toLowerCase()),
  'billing.invoices.pdf': async ({ principal, params, query }) =>
    invoicePdf(await ofInvoice(principal!, query.tenantId, params.invoiceId), params.invoiceId.toLowerCase()),
  'billing.admin.subscriptions': async ({ query }) => await adminSubscriptions(query),
  'billing.admin.extendTrial': async ({ principal, params, body }) =>
    await extendTrial(params.tenantId.toLowerCase(), body.additionalDays, principal!),
});
