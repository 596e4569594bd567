import { auditPut, countAudit } from '#shared/data/audit.ts';
import { getItem, putNew } from '#shared/data/collection.ts';
import { updateItem } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { transact, type TransactItem } from '#shared/data/transact.ts';
import type { BillingAction, WebhookPayload } from './events.ts';
import type { InvoiceDocument } from './invoice-pdf.ts';
import { derivedUuid, INVOICE_STATUS_LABEL, newInvoice, newPayment } from './ledger.ts';
import {
  addDays,
  addPeriod,
  billingKeys,
  InvoiceStatus,
  PaymentProvider,
  PaymentStatus,
  SubscriptionStatus,
  type Item,
} from './records.ts';
import type { PaymentProviderName } from './signatures.ts';
import { countIntegrationEvents, integrationEventPut } from '#areas/identity/integration-events.ts';
import { logger } from '#shared/runtime/logger.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { PLANS } from '#shared/reference/plans.ts';

const read = (key: { pk: string; sk: string }) => getItem<Item>(key, true);

/** A SET update under an optional condition (`#status` stands for the reserved word `status`). */
const update = (
  key: { pk: string; sk: string },
  set: Record<string, unknown>,
  condition?: { expression: string; values: Record<string, unknown> },
): TransactItem =>
  updateItem(
    key,
    set,
    condition && {
      condition: condition.expression,
      values: condition.values,
      ...(condition.expression.includes('#status') ? { names: { '#status': 'status' } } : {}),
    },
  );

/** What applying one event writes; `outcome` is kept on the event's marker. */
interface Plan {
  outcome: 'applied' | 'ignored' | 'stale';
  items: TransactItem[];
  audits: { entityType: string; entityId: string; action: string; changes: Record<string, unknown> | null }[];
  events: { type: string; data: Record<string, unknown> }[];
  pdf?: InvoiceDocument;
  payments: string[];
}

const nothing = (outcome: Plan['outcome']): Plan => ({ outcome, items: [], audits: [], events: [], payments: [] });

interface Movement {
  t: string;
  tenantName: string;
  sub: Item | null;
  eventKey: string;
  amountMinor: number;
  currency: string;
  chargeRef: string | null;
  paid: boolean;
  description: string;
  now: string;
  reason?: string;
  /** An existing Pending payment this settles; otherwise a new payment is recorded. */
  paymentId?: string;
}

/** A payment (Paid or Failed) and its invoice (Paid, or Overdue for a failed charge), with the PDF to store first. */
function movement(m: Movement) {
  const invoiceId = derivedUuid(m.eventKey, 'invoice');
  const paymentId = m.paymentId ?? derivedUuid(m.eventKey, 'payment');
  const status = m.paid ? InvoiceStatus.Paid : InvoiceStatus.Overdue;
  const planName = (m.sub?.planName as string | undefined) ?? null;
  const lines = [{ description: m.description, amountMinor: m.amountMinor, quantity: 1 }];
  const pdf = {
    id: invoiceId,
    tenantId: m.t,
    tenantName: m.tenantName,
    planName,
    amountMinor: m.amountMinor,
    currency: m.currency,
    statusLabel: INVOICE_STATUS_LABEL[status]!,
    issuedAt: m.now,
    paidAt: m.paid ? m.now : null,
    items: lines,
  };
  const invoice = newInvoice(
    {
      id: invoiceId,
      tenantId: m.t,
      subscriptionId: (m.sub?.id as string | undefined) ?? null,
      subscriptionPlanName: planName,
      paymentId,
      amountMinor: m.amountMinor,
      currency: m.currency,
      status,
      dueDate: m.now,
      paidAt: m.paid ? m.now : null,
      items: lines,
      pdfKey: `invoices/${m.t}/${invoiceId}.pdf`,
    },
    m.now,
  );
  const fields = {
    status: m.paid ? PaymentStatus.Paid : PaymentStatus.Failed,
    providerReferenceId: m.chargeRef,
    paidAt: m.paid ? m.now : null,
    invoiceId,
    failureReason: m.paid ? null : (m.reason ?? null),
    updatedAt: m.now,
  };
  const payment = m.paymentId
    ? [
        update(billingKeys.payment(m.t, m.paymentId), fields, {
          expression: '#status IN (:pending, :failed)',
          values: { ':pending': PaymentStatus.Pending, ':failed': PaymentStatus.Failed },
        }),
      ]
    : newPayment(
        {
          id: paymentId,
          tenantId: m.t,
          subscriptionId: (m.sub?.id as string | undefined) ?? null,
          amountMinor: m.amountMinor,
          currency: m.currency,
          provider: PaymentProvider.A,
          description: m.description,
          ...fields,
        },
        m.now,
      );
  return { paymentId, invoiceId, items: [...payment, ...invoice], pdf };
}

async function plan(payload: WebhookPayload, now: string): Promise<Plan> {
  const { action } = payload;
  if (action.kind === 'ignored') return nothing('ignored');
  const t = action.tenantId;
  const tenant = await read(keys.platformItem('TENANT', t));
  if (!tenant) return nothing('stale');
  const tenantName = String(tenant.name ?? '');
  const eventKey = `${payload.provider}:${payload.eventId}`;

  if (action.kind === 'payment.paid' || action.kind === 'payment.failed' || action.kind === 'payment.refunded') {
    const payment = await read(billingKeys.payment(t, action.paymentId));
    if (!payment) return nothing('stale');
    if (action.kind === 'payment.refunded') {
      if (payment.status !== PaymentStatus.Paid) return nothing('stale');
      const items = [
        update(
          billingKeys.payment(t, action.paymentId),
          { status: PaymentStatus.Refunded, refundedAt: now, refundReference: action.refundRef, updatedAt: now },
          { expression: '#status = :paid', values: { ':paid': PaymentStatus.Paid } },
        ),
      ];
      if (payment.invoiceId)
        items.push(
          update(billingKeys.invoice(t, String(payment.invoiceId)), {
            status: InvoiceStatus.Cancelled,
            updatedAt: now,
          }),
        );
      return {
        outcome: 'applied',
        items,
        audits: [
          {
            entityType: 'Payment',
            entityId: action.paymentId,
            action: 'Refunded',
            changes: { status: PaymentStatus.Refunded },
          },
        ],
        events: [
          {
            type: 'payment.refunded',
            data: {
              tenantId: t,
              paymentId: action.paymentId,
              amountMinor: payment.amountMinor,
              currency: payment.currency,
            },
          },
        ],
        payments: ['Refunded'],
      };
    }
    const paid = action.kind === 'payment.paid';
    // A late success may follow a failure (the customer retried at the provider); nothing else moves.
    if (payment.status !== PaymentStatus.Pending && !(paid && payment.status === PaymentStatus.Failed))
      return nothing('stale');
    const sub = payment.subscriptionId
      ? ((await read(billingKeys.subscription(t, String(payment.subscriptionId)))) ?? null)
      : null;
    if (!paid) {
      return {
        outcome: 'applied',
        items: [
          update(
            billingKeys.payment(t, action.paymentId),
            {
              status: PaymentStatus.Failed,
              providerReferenceId: action.chargeRef,
              failureReason: action.reason,
              updatedAt: now,
            },
            { expression: '#status = :pending', values: { ':pending': PaymentStatus.Pending } },
          ),
        ],
        audits: [
          {
            entityType: 'Payment',
            entityId: action.paymentId,
            action: 'Failed',
            changes: { status: PaymentStatus.Failed, reason: action.reason },
          },
        ],
        events: [{ type: 'payment.failed', data: { tenantId: t, paymentId: action.paymentId, reason: action.reason } }],
        payments: ['Failed'],
      };
    }
    const m = movement({
      t,
      tenantName,
      sub,
      eventKey,
      amountMinor: action.amountMinor,
      currency: action.currency,
      chargeRef: action.chargeRef,
      paid: true,
      description: String(payment.description ?? 'Payment'),
      now,
      paymentId: action.paymentId,
    });
    return {
      outcome: 'applied',
      items: m.items,
      pdf: m.pdf,
      audits: [
        {
          entityType: 'Payment',
          entityId: action.paymentId,
          action: 'Paid',
          changes: { status: PaymentStatus.Paid, invoiceId: m.invoiceId },
        },
        { entityType: 'Invoice', entityId: m.invoiceId, action: 'Issued', changes: { status: InvoiceStatus.Paid } },
      ],
      events: [
        {
          type: 'payment.succeeded',
          data: {
            tenantId: t,
            paymentId: action.paymentId,
            invoiceId: m.invoiceId,
            amountMinor: action.amountMinor,
            currency: action.currency,
          },
        },
      ],
      payments: ['Paid'],
    };
  }

  const subKey = billingKeys.subscription(t, action.subscriptionId);
  const sub = await read(subKey);
  if (!sub) return nothing('stale');
  const status = Number(sub.status);
  const live =
    !sub.awaitingCheckout &&
    [SubscriptionStatus.Active, SubscriptionStatus.Trialing, SubscriptionStatus.Suspended].includes(status as 1);
  const audit = (what: string, changes: Record<string, unknown>) => ({
    entityType: 'Subscription',
    entityId: action.subscriptionId,
    action: what,
    changes,
  });
  const period = Number(sub.billingPeriod);

  switch (action.kind) {
    case 'subscription.checkout': {
      if (!sub.awaitingCheckout || status !== SubscriptionStatus.Inactive) return nothing('stale');
      const trialDays = Number(sub.trialDays ?? 0);
      const newStatus = trialDays > 0 ? SubscriptionStatus.Trialing : SubscriptionStatus.Active;
      const renewalDate = trialDays > 0 ? addDays(now, trialDays) : addPeriod(now, period);
      const trialExpiresAt = trialDays > 0 ? renewalDate : null;
      const features = PLANS.find((p) => p.id === sub.planId)?.features;
      const items: TransactItem[] = [
        update(
          subKey,
          { status: newStatus, awaitingCheckout: false, startDate: now, renewalDate, trialExpiresAt, updatedAt: now },
          {
            expression: '#status = :inactive AND awaitingCheckout = :true',
            values: { ':inactive': SubscriptionStatus.Inactive, ':true': true },
          },
        ),
        update(
          billingKeys.current(t),
          { state: 'live', updatedAt: now },
          { expression: 'subscriptionId = :sid', values: { ':sid': action.subscriptionId } },
        ),
        update(keys.platformItem('TENANT', t), {
          planType: sub.planType,
          trialExpiresAt,
          ...(features ? { maxAgents: features.maxAgents, maxKnowledgeBases: features.maxKnowledgeBases } : {}),
          updatedAt: now,
        }),
      ];
      if (trialDays > 0)
        items.push(putNew({ ...billingKeys.trialUsed(t), subscriptionId: action.subscriptionId, startedAt: now }));
      const result: Plan = {
        outcome: 'applied',
        items,
        audits: [audit(trialDays > 0 ? 'TrialStarted' : 'Activated', { status: newStatus, renewalDate })],
        events: [
          {
            type: trialDays > 0 ? 'subscription.trial_started' : 'subscription.activated',
            data: { tenantId: t, subscriptionId: action.subscriptionId, planId: sub.planId, renewalDate },
          },
        ],
        payments: [],
      };
      if (action.amountMinor > 0) {
        const m = movement({
          t,
          tenantName,
          sub,
          eventKey,
          amountMinor: action.amountMinor,
          currency: action.currency,
          chargeRef: action.chargeRef,
          paid: true,
          description: `${sub.planName} subscription, first period`,
          now,
        });
        result.items.push(...m.items);
        result.pdf = m.pdf;
        result.audits.push({
          entityType: 'Payment',
          entityId: m.paymentId,
          action: 'Paid',
          changes: { status: PaymentStatus.Paid, invoiceId: m.invoiceId },
        });
        result.events.push({
          type: 'payment.succeeded',
          data: {
            tenantId: t,
            paymentId: m.paymentId,
            invoiceId: m.invoiceId,
            amountMinor: action.amountMinor,
            currency: action.currency,
          },
        });
        result.payments.push('Paid');
      }
      return result;
    }
    case 'subscription.renewed': {
      if (!live) return nothing('stale');
      const from = (sub.renewalDate as string | null) ?? now;
      const renewalDate = addPeriod(from, period);
      const m = movement({
        t,
        tenantName,
        sub,
        eventKey,
        amountMinor: action.amountMinor,
        currency: action.currency,
        chargeRef: action.chargeRef,
        paid: true,
        description: `${sub.planName} subscription, renewal to ${renewalDate.slice(0, 10)}`,
        now,
      });
      return {
        outcome: 'applied',
        items: [
          update(
            subKey,
            { status: SubscriptionStatus.Active, renewalDate, updatedAt: now },
            {
              expression: 'renewalDate = :from OR attribute_type(renewalDate, :null)',
              values: { ':from': from, ':null': 'NULL' },
            },
          ),
          ...m.items,
        ],
        pdf: m.pdf,
        audits: [
          audit('Renewed', { status: SubscriptionStatus.Active, renewalDate }),
          { entityType: 'Payment', entityId: m.paymentId, action: 'Paid', changes: { invoiceId: m.invoiceId } },
        ],
        events: [
          { type: 'subscription.renewed', data: { tenantId: t, subscriptionId: action.subscriptionId, renewalDate } },
          {
            type: 'payment.succeeded',
            data: {
              tenantId: t,
              paymentId: m.paymentId,
              invoiceId: m.invoiceId,
              amountMinor: action.amountMinor,
              currency: action.currency,
            },
          },
        ],
        payments: ['Paid'],
      };
    }
    case 'subscription.renewal_failed': {
      const pendingCheckout = sub.awaitingCheckout && status === SubscriptionStatus.Inactive;
      if (!live && !pendingCheckout) return nothing('stale');
      const m = movement({
        t,
        tenantName,
        sub,
        eventKey,
        amountMinor: action.amountMinor,
        currency: action.currency,
        chargeRef: action.chargeRef,
        paid: false,
        reason: action.reason,
        description: `${sub.planName} subscription, ${pendingCheckout ? 'first period' : 'renewal'}`,
        now,
      });
      // A declined first checkout leaves the subscription pending (the customer may try again); a failed renewal suspends it.
      const suspend = pendingCheckout ? [] : [update(subKey, { status: SubscriptionStatus.Suspended, updatedAt: now })];
      return {
        outcome: 'applied',
        items: [...suspend, ...m.items],
        pdf: m.pdf,
        audits: [
          ...(pendingCheckout
            ? []
            : [audit('Suspended', { status: SubscriptionStatus.Suspended, reason: action.reason })]),
          { entityType: 'Payment', entityId: m.paymentId, action: 'Failed', changes: { reason: action.reason } },
        ],
        events: [
          ...(pendingCheckout
            ? []
            : [{ type: 'subscription.suspended', data: { tenantId: t, subscriptionId: action.subscriptionId } }]),
          {
            type: 'payment.failed',
            data: { tenantId: t, paymentId: m.paymentId, invoiceId: m.invoiceId, reason: action.reason },
          },
        ],
        payments: ['Failed'],
      };
    }
    case 'subscription.cancelled': {
      if (status === SubscriptionStatus.Cancelled) return nothing('stale');
      return {
        outcome: 'applied',
        items: [
          update(
            subKey,
            { status: SubscriptionStatus.Cancelled, awaitingCheckout: false, cancelledAt: now, updatedAt: now },
            { expression: '#status = :was', values: { ':was': status } },
          ),
          update(
            billingKeys.current(t),
            { state: 'cancelled', updatedAt: now },
            { expression: 'subscriptionId = :sid', values: { ':sid': action.subscriptionId } },
          ),
        ],
        audits: [audit('Cancelled', { status: SubscriptionStatus.Cancelled })],
        events: [{ type: 'subscription.cancelled', data: { tenantId: t, subscriptionId: action.subscriptionId } }],
        payments: [],
      };
    }
  }
}

/**
 * Applies one verified provider event at most once: the event's marker is created in the same
 * transaction as every change it causes, so concurrent or repeated deliveries find it taken and
 * change nothing. An event that no longer fits the records (already applied another way, or for
 * a record that is gone) is recorded as `stale`, an unknown kind as `ignored`.
 */
export async function applyWebhookEvent(
  payload: WebhookPayload,
): Promise<'applied' | 'ignored' | 'stale' | 'duplicate'> {
  const marker = keys.webhookEvent(payload.provider, payload.eventId);
  const duplicate = () => {
    countMetric('WebhookDuplicateIgnored', payload.provider);
    return 'duplicate' as const;
  };
  if (await read(marker)) return duplicate();
  const now = new Date().toISOString();
  const p = await plan(payload, now);
  // Rendered before the commit, under an id derived from the event: a retry overwrites the same object.
  if (p.pdf) await (await import('./invoice-pdf.ts')).storeInvoicePdf(p.pdf);
  const tenantId = p.outcome === 'ignored' ? null : (payload.action as { tenantId: string }).tenantId;
  const outcome = await transact([
    putNew({
      ...marker,
      provider: payload.provider,
      eventId: payload.eventId,
      eventType: payload.eventType,
      outcome: p.outcome,
      tenantId,
      receivedAt: now,
    }),
    ...p.items,
    ...p.audits.map((a) => auditPut({ ...a, actor: null, tenantId }, now)),
    ...p.events.map((e) => integrationEventPut(e.type, e.data, now)),
  ]);
  if (!outcome.ok) {
    if (outcome.failedAt.includes(0)) return duplicate();
    // The records moved between reading and writing: the queue retries and the plan is made again.
    throw new Error(`Billing records changed while applying ${payload.eventId}; will retry`);
  }
  if (p.outcome !== 'applied')
    logger.warn('webhook event not applied', {
      provider: payload.provider,
      eventId: payload.eventId,
      eventType: payload.eventType,
      outcome: p.outcome,
    });
  countMetric('WebhookApplied', payload.provider);
  for (const status of p.payments) countMetric('Payment', status);
  await Promise.all([countAudit(p.audits.length), countIntegrationEvents(p.events.length)]);
  return p.outcome;
}
