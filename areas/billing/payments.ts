import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, orConflict, updateItem } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get, getOr404 } from '#shared/data/read.ts';
import { validationError } from '#shared/http/errors.ts';
import { paymentNotRefundable, refundAlreadyRequested, subscriptionCancelled } from './errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { logger } from '#shared/runtime/logger.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { paymentGateway } from './gateway.ts';
import { newPayment } from './ledger.ts';
import { toMinor } from './money.ts';
import { billingKeys, toPayment, type MethodRecord, type PaymentRecord, type SubscriptionRecord } from './records.ts';
import { PaymentProvider, PaymentStatus, PENDING, SubscriptionStatus, type ProviderId } from './vocabulary.ts';

export interface ProcessInput {
  subscriptionId: string;
  amount: number;
  currency: string;
  paymentMethodId?: string | null;
  description?: string | null;
}

/**
 * Records a Pending payment, then hands it to the provider: a stored method is charged directly,
 * otherwise the answer carries the provider's checkout address. The provider's webhook settles it.
 */
export async function processPayment(tenantId: string, input: ProcessInput, actor: Principal) {
  const money = toMinor(input.amount, input.currency);
  if (!money.ok)
    throw validationError([
      { path: money.message.startsWith('Unknown currency') ? 'body.currency' : 'body.amount', message: money.message },
    ]);
  const sub = await getOr404<SubscriptionRecord>(
    billingKeys.subscription(tenantId, input.subscriptionId),
    'Subscription',
    {
      consistent: true,
    },
  );
  if (Number(sub.status) === SubscriptionStatus.Cancelled) throw subscriptionCancelled();
  const method = input.paymentMethodId
    ? await getOr404<MethodRecord>(billingKeys.method(tenantId, input.paymentMethodId), 'Payment method', {
        consistent: true,
      })
    : undefined;
  const provider = (method ? Number(method.provider) : PaymentProvider.A) as ProviderId;

  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const description = input.description?.trim() || `Payment for ${sub.planName} subscription`;
  await commitChange(
    newPayment(
      {
        id,
        tenantId,
        subscriptionId: sub.id,
        invoiceId: null,
        amountMinor: money.minor,
        currency: input.currency,
        status: PaymentStatus.Pending,
        provider,
        providerReferenceId: null,
        paidAt: null,
        description,
      },
      now,
    ),
    {
      tenantId,
      actor,
      entityType: 'Payment',
      entityId: id,
      action: 'Created',
      changes: { amountMinor: money.minor, currency: input.currency, provider, paymentMethodId: method?.id ?? null },
    },
    { now, onConflict: 'The payment could not be recorded; try again' },
  );
  countMetric('Payment', 'Pending');

  const gateway = paymentGateway(provider);
  const request = {
    tenantId,
    kind: 'payment' as const,
    reference: id,
    amountMinor: money.minor,
    currency: input.currency,
    description,
  };
  if (method) {
    await gateway.charge({ ...request, providerMethodId: method.providerMethodId });
    return { paymentId: id, status: PENDING, checkoutUrl: null, expiresAt: null };
  }
  const checkout = await gateway.createCheckout(request);
  return { paymentId: id, status: PENDING, checkoutUrl: checkout.checkoutUrl, expiresAt: checkout.expiresAt };
}

const dayStart = (d: string) => (d.length === 10 ? `${d}T00:00:00.000Z` : new Date(d).toISOString());
const dayEnd = (d: string) => (d.length === 10 ? `${d}T23:59:59.999Z` : new Date(d).toISOString());

/** Payment history: one Query of the newest-first index, bounded by the dates in its key condition. */
export async function paymentHistory(
  tenantId: string,
  q: { page: number; pageSize: number; startDate?: string; endDate?: string; statusFilter?: number },
) {
  const from = q.startDate ? dayStart(q.startDate) : '0000';
  const to = q.endDate ? `${dayEnd(q.endDate)}#~` : '9999';
  if (from > to) throw validationError([{ path: 'query.endDate', message: 'endDate is before startDate' }]);
  const filtered = q.statusFilter !== undefined;
  const all = await queryItems<PaymentRecord>({
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': billingKeys.payments(tenantId),
      ':from': from,
      ':to': to,
      ...(filtered ? { ':s': q.statusFilter } : {}),
    },
    ...(filtered ? { FilterExpression: '#status = :s', ExpressionAttributeNames: { '#status': 'status' } } : {}),
    ScanIndexForward: false,
  });
  const start = (q.page - 1) * q.pageSize;
  return toPage(all.slice(start, start + q.pageSize).map(toPayment), all.length, q.page, q.pageSize);
}

/**
 * Asks the provider to refund a Paid payment. The request is marked on the payment first, under a
 * condition (once: a second request, even a concurrent one, is 409 and never reaches the
 * provider), and released again when the provider refuses; the provider's confirmation webhook
 * makes the payment Refunded. Refunding a subscription period's charge also ends the subscription
 * at the provider (docs/decisions/billing.md, "What the tenant pays for").
 */
export async function requestRefund(tenantId: string, paymentId: string, reason: string, actor: Principal) {
  const key = billingKeys.payment(tenantId, paymentId);
  const payment = await getOr404<PaymentRecord>(key, 'Payment', { consistent: true });
  if (Number(payment.status) !== PaymentStatus.Paid) throw paymentNotRefundable();
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(
        updateItem(
          key,
          { refundRequestedAt: now, refundReason: reason, updatedAt: now },
          {
            condition: '#status = :paid AND attribute_not_exists(refundRequestedAt)',
            names: { '#status': 'status' },
            values: { ':paid': PaymentStatus.Paid },
          },
        ),
        refundAlreadyRequested(),
      ),
    ],
    { tenantId, actor, entityType: 'Payment', entityId: paymentId, action: 'RefundRequested', changes: { reason } },
    { now },
  );
  const gateway = paymentGateway(Number(payment.provider) as ProviderId);
  try {
    await gateway.refund({
      tenantId,
      paymentId,
      providerReferenceId: String(payment.providerReferenceId),
      amountMinor: Number(payment.amountMinor),
      currency: payment.currency,
    });
  } catch (err) {
    await releaseRefund(tenantId, paymentId, now, actor);
    throw err;
  }
  if (payment.periodCharge && payment.subscriptionId) await endAtProvider(tenantId, payment.subscriptionId);
  return toPayment((await get<PaymentRecord>(key, { consistent: true })) ?? payment);
}

/** The provider refused the refund: the payment may be refunded again. */
const releaseRefund = (tenantId: string, paymentId: string, requestedAt: string, actor: Principal) =>
  commitChange(
    [
      updateItem(
        billingKeys.payment(tenantId, paymentId),
        { updatedAt: new Date().toISOString() },
        {
          remove: ['refundRequestedAt', 'refundReason'],
          condition: 'refundRequestedAt = :at',
          values: { ':at': requestedAt },
        },
      ),
    ],
    { tenantId, actor, entityType: 'Payment', entityId: paymentId, action: 'RefundRefused', changes: null },
  ).catch((error: unknown) => logger.error('refund mark not released', { paymentId, error: error as Error }));

/**
 * Stops the provider's renewals of a subscription whose period charge was refunded. Our side ends
 * it when the refund is confirmed (the webhook worker); a failure here is logged, not answered: the
 * refund itself was accepted.
 */
async function endAtProvider(tenantId: string, subscriptionId: string) {
  const sub = await get<SubscriptionRecord>(billingKeys.subscription(tenantId, subscriptionId), { consistent: true });
  if (!sub) return;
  try {
    await paymentGateway(sub.provider ?? PaymentProvider.A).cancelSubscription({ tenantId, subscriptionId });
  } catch (error) {
    logger.error('subscription not cancelled at the provider after a refund', {
      subscriptionId,
      error: error as Error,
    });
  }
}
