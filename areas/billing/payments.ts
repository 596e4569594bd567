import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '#shared/auth/access-token.ts';
import { getItem } from '#shared/data/collection.ts';
import { commitChange, updateItem } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { paymentGateway } from './gateway.ts';
import { newPayment } from './ledger.ts';
import { toMinor } from './money.ts';
import {
  billingKeys,
  PaymentProvider,
  PaymentStatus,
  SubscriptionStatus,
  toPayment,
  type Item,
  type ProviderId,
} from './records.ts';
import { conflict, notFound, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { countMetric } from '#shared/runtime/metrics.ts';

const read = (key: { pk: string; sk: string }) => getItem<Item>(key, true);

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
export async function processPayment(t: string, input: ProcessInput, actor: Principal) {
  const money = toMinor(input.amount, input.currency);
  if (!money.ok)
    throw validationError([
      { path: money.message.startsWith('Unknown currency') ? 'body.currency' : 'body.amount', message: money.message },
    ]);
  const sub = await read(billingKeys.subscription(t, input.subscriptionId.toLowerCase()));
  if (!sub) throw notFound('Subscription');
  if (Number(sub.status) === SubscriptionStatus.Cancelled)
    throw conflict('The subscription is cancelled', 'SUBSCRIPTION_CANCELLED');
  const method = input.paymentMethodId
    ? await read(billingKeys.method(t, input.paymentMethodId.toLowerCase()))
    : undefined;
  if (input.paymentMethodId && !method) throw notFound('Payment method');
  const provider = (method ? Number(method.provider) : PaymentProvider.A) as ProviderId;

  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const description = input.description?.trim() || `Payment for ${sub.planName} subscription`;
  await commitChange(
    newPayment(
      {
        id,
        tenantId: t,
        subscriptionId: String(sub.id),
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
      tenantId: t,
      actor,
      entityType: 'Payment',
      entityId: id,
      action: 'Created',
      changes: { amountMinor: money.minor, currency: input.currency, provider, paymentMethodId: method?.id ?? null },
    },
    now,
    'The payment could not be recorded; try again',
  );
  countMetric('Payment', 'Pending');

  const gateway = await paymentGateway(provider);
  const request = {
    tenantId: t,
    kind: 'payment' as const,
    reference: id,
    amountMinor: money.minor,
    currency: input.currency,
    description,
  };
  if (method) {
    await gateway.charge({ ...request, providerMethodId: String(method.providerMethodId) });
    return { paymentId: id, status: 'PENDING', checkoutUrl: null, expiresAt: null };
  }
  const checkout = await gateway.createCheckout(request);
  return { paymentId: id, status: 'PENDING', checkoutUrl: checkout.checkoutUrl, expiresAt: checkout.expiresAt };
}

const dayStart = (d: string) => (d.length === 10 ? `${d}T00:00:00.000Z` : new Date(d).toISOString());
const dayEnd = (d: string) => (d.length === 10 ? `${d}T23:59:59.999Z` : new Date(d).toISOString());

/** Payment history: one Query of the newest-first index, bounded by the dates in its key condition. */
export async function paymentHistory(
  t: string,
  q: { page: number; pageSize: number; startDate?: string; endDate?: string; statusFilter?: number },
) {
  const from = q.startDate ? dayStart(q.startDate) : '0000';
  const to = q.endDate ? `${dayEnd(q.endDate)}#~` : '9999';
  if (from > to) throw validationError([{ path: 'query.endDate', message: 'endDate is before startDate' }]);
  const filtered = q.statusFilter !== undefined;
  const all = await queryItems({
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': billingKeys.payments(t),
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
 * Asks the provider to refund a Paid payment. The request is marked on the payment first (once:
 * a second request is 409) and released again when the provider refuses; the provider's
 * confirmation webhook makes the payment Refunded.
 */
export async function requestRefund(t: string, paymentId: string, reason: string, actor: Principal) {
  const key = billingKeys.payment(t, paymentId);
  const payment = await read(key);
  if (!payment) throw notFound('Payment');
  if (Number(payment.status) !== PaymentStatus.Paid)
    throw conflict('Only a Paid payment can be refunded', 'PAYMENT_NOT_REFUNDABLE');
  const now = new Date().toISOString();
  await commitChange(
    [
      updateItem(
        key,
        { refundRequestedAt: now, refundReason: reason, updatedAt: now },
        {
          condition: '#status = :paid AND attribute_not_exists(refundRequestedAt)',
          names: { '#status': 'status' },
          values: { ':paid': PaymentStatus.Paid },
        },
      ),
    ],
    { tenantId: t, actor, entityType: 'Payment', entityId: paymentId, action: 'RefundRequested', changes: { reason } },
    now,
    conflict('A refund of this payment was already requested', 'REFUND_ALREADY_REQUESTED'),
  );
  try {
    const gateway = await paymentGateway(Number(payment.provider) as ProviderId);
    await gateway.refund({
      tenantId: t,
      paymentId,
      providerReferenceId: String(payment.providerReferenceId),
      amountMinor: Number(payment.amountMinor),
      currency: String(payment.currency),
    });
  } catch (err) {
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: key,
        UpdateExpression: 'REMOVE refundRequestedAt, refundReason',
      }),
    );
    throw err;
  }
  return toPayment((await read(key)) ?? payment);
}
