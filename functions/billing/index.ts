import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { idempotent } from '#areas/billing/idempotency.ts';
import { idempotencyKey } from '#shared/http/idempotency-key.ts';
import { invoiceDetail, invoicePdf, listInvoices } from '#areas/billing/invoices.ts';
import { addMethod, deleteMethod, listMethods, setDefault } from '#areas/billing/methods.ts';
import { paymentHistory, processPayment, requestRefund } from '#areas/billing/payments.ts';
import { activePlans, PLAN_CACHE_SECONDS } from '#areas/billing/plans.ts';
import {
  adminSubscriptions,
  createSubscription,
  currentSubscription,
  extendTrial,
} from '#areas/billing/subscriptions.ts';
import { reply } from '#shared/http/responses.ts';
import { billingRoutes } from '#areas/billing/routes/billing.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';

export const handler = apiHandler(
  billingRoutes,
  {
    'billing.plans': async () =>
      reply.json(await activePlans(), { headers: { 'cache-control': `private, max-age=${PLAN_CACHE_SECONDS}` } }),
    'billing.subscriptions.current': async ({ tenantId }) => await currentSubscription(tenantId),
    'billing.subscriptions.create': async ({ tenantId, principal, body, headers }) => {
      const { tenantId: _, ...input } = body;
      return await idempotent(tenantId, 'subscriptions', idempotencyKey(headers), body, () =>
        createSubscription(tenantId, input, principal),
      );
    },
    'billing.payments.process': async ({ tenantId, principal, body, headers }) => {
      const { tenantId: _, ...input } = body;
      return await idempotent(tenantId, 'payments', idempotencyKey(headers), body, () =>
        processPayment(tenantId, input, principal),
      );
    },
    'billing.payments.history': async ({ tenantId, query }) => await paymentHistory(tenantId, query),
    'billing.payments.refund': async ({ tenantId, principal, params: { paymentId }, body, headers }) =>
      await idempotent(tenantId, `refund#${paymentId}`, idempotencyKey(headers), body, () =>
        requestRefund(tenantId, paymentId, body.reason, principal),
      ),
    'billing.methods.list': async ({ tenantId }) => await listMethods(tenantId),
    'billing.methods.add': async ({ tenantId, principal, body: { tenantId: _, ...input } }) =>
      await addMethod(tenantId, input, principal),
    'billing.methods.setDefault': async ({ tenantId, principal, params }) =>
      await setDefault(tenantId, params.paymentMethodId, principal),
    'billing.methods.delete': async ({ tenantId, principal, params }) => {
      await deleteMethod(tenantId, params.paymentMethodId, principal);
    },
    'billing.invoices.list': async ({ tenantId, query }) => await listInvoices(tenantId, query),
    'billing.invoices.get': async ({ tenantId, params }) => await invoiceDetail(tenantId, params.invoiceId),
    'billing.invoices.pdf': async ({ tenantId, params }) => await invoicePdf(tenantId, params.invoiceId),
    'billing.admin.subscriptions': async ({ query }) => await adminSubscriptions(query),
    'billing.admin.extendTrial': async ({ principal, params, body }) =>
      await extendTrial(params.tenantId, body.additionalDays, principal),
  },
  { tenants: tenantDirectory },
);
