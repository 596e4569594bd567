import { tenantName as tenantNameOf } from '#areas/identity/for-billing.ts';
import { auditPut, countAudit } from '#shared/data/audit.ts';
import { commitChange, orConflict, putNew, updateItem, type TransactItem } from '#shared/data/commit.ts';
import type { Key } from '#shared/data/keys.ts';
import { get } from '#shared/data/read.ts';
import { ApiError } from '#shared/http/errors.ts';
import { webhookEventApplied } from './errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { countIntegrationEvents, integrationEventPut } from '#shared/data/integration-events.ts';
import { limitsDown, limitsUp } from './entitlements.ts';
import type { WebhookPayload } from './events.ts';
import type { InvoiceDocument } from './invoice-pdf.ts';
import { derivedUuid, INVOICE_STATUS_LABEL, newInvoice, newPayment } from './ledger.ts';
import { addDays, addPeriod } from './periods.ts';
import { invoicePdfKey } from './invoice-objects.ts';
import { billingKeys, type PaymentRecord, type SubscriptionRecord } from './records.ts';
import { InvoiceStatus, PaymentProvider, PaymentStatus, SubscriptionStatus } from './vocabulary.ts';

const read = <T>(key: Key) => get<T>(key, { consistent: true });

/** A SET update under an optional condition (`#status` stands for the reserved word `status`). */
const update = (
  key: Key,
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

type Audit = { entityType: string; entityId: string; action: string; changes: Record<string, unknown> | null };
type Event = { type: string; data: Record<string, unknown> };

/** What applying one event writes; `outcome` is kept on the event's marker. */
interface Plan {
  outcome: 'applied' | 'ignored' | 'stale';
  items: TransactItem[];
  audits: Audit[];
  events: Event[];
  pdf?: InvoiceDocument;
  payments: string[];
}

const nothing = (outcome: Plan['outcome']): Plan => ({ outcome, items: [], audits: [], events: [], payments: [] });

/** Active, Trialing or Suspended, past its first checkout: the subscriptions the tenant has (had) paid for. */
const isLive = (sub: SubscriptionRecord) =>
  !sub.awaitingCheckout &&
  [SubscriptionStatus.Active, SubscriptionStatus.Trialing, SubscriptionStatus.Suspended].includes(
    Number(sub.status) as 1,
  );

/**
 * Ends a subscription the tenant no longer pays for (the provider deleted it, or its period
 * charge was refunded): Cancelled, the tenant's pointer freed for a new one, and the tenant's
 * limits back on the baseline when the subscription had raised them.
 */
function endSubscription(tenantId: string, sub: SubscriptionRecord, now: string, reason: string) {
  const items: TransactItem[] = [
    update(
      billingKeys.subscription(tenantId, sub.id),
      { status: SubscriptionStatus.Cancelled, awaitingCheckout: false, cancelledAt: now, updatedAt: now },
      { expression: '#status = :was', values: { ':was': Number(sub.status) } },
    ),
    update(
      billingKeys.current(tenantId),
      { state: 'cancelled', updatedAt: now },
      { expression: 'subscriptionId = :sid', values: { ':sid': sub.id } },
    ),
  ];
  if (isLive(sub)) items.push(limitsDown(tenantId, now));
  return {
    items,
    audits: [
      {
        entityType: 'Subscription',
        entityId: sub.id,
        action: 'Cancelled',
        changes: { status: SubscriptionStatus.Cancelled, reason },
      },
    ],
    events: [{ type: 'subscription.cancelled', data: { tenantId, subscriptionId: sub.id, reason } }],
  };
}

interface Movement {
  tenantId: string;
  tenantName: string;
  sub: SubscriptionRecord | null;
  eventKey: string;
  amountMinor: number;
  currency: string;
  chargeRef: string | null;
  paid: boolean;
  description: string;
  now: string;
  reason?: string;
  /** An existing Pending payment this settles; otherwise a new payment is recorded, a subscription period's charge. */
  paymentId?: string;
}

/** A payment (Paid or Failed) and its invoice (Paid, or Overdue for a failed charge), with the PDF to store first. */
function movement(m: Movement) {
  const invoiceId = derivedUuid(m.eventKey, 'invoice');
  const paymentId = m.paymentId ?? derivedUuid(m.eventKey, 'payment');
  const status = m.paid ? InvoiceStatus.Paid : InvoiceStatus.Overdue;
  const planName = m.sub?.planName ?? null;
  const lines = [{ description: m.description, amountMinor: m.amountMinor, quantity: 1 }];
  const pdf: InvoiceDocument = {
    id: invoiceId,
    tenantId: m.tenantId,
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
      tenantId: m.tenantId,
      subscriptionId: m.sub?.id ?? null,
      subscriptionPlanName: planName,
      paymentId,
      amountMinor: m.amountMinor,
      currency: m.currency,
      status,
      dueDate: m.now,
      paidAt: m.paid ? m.now : null,
      items: lines,
      pdfKey: invoicePdfKey(m.tenantId, invoiceId),
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
        update(billingKeys.payment(m.tenantId, m.paymentId), fields, {
          expression: '#status IN (:pending, :failed)',
          values: { ':pending': PaymentStatus.Pending, ':failed': PaymentStatus.Failed },
        }),
      ]
    : newPayment(
        {
          id: paymentId,
          tenantId: m.tenantId,
          subscriptionId: m.sub?.id ?? null,
          amountMinor: m.amountMinor,
          currency: m.currency,
          provider: PaymentProvider.A,
          description: m.description,
          periodCharge: true,
          ...fields,
        },
        m.now,
      );
  return { paymentId, invoiceId, items: [...payment, ...invoice], pdf };
}

const succeeded = (
  tenantId: string,
  m: { paymentId: string; invoiceId: string },
  amountMinor: number,
  currency: string,
) => ({
  type: 'payment.succeeded',
  data: { tenantId, paymentId: m.paymentId, invoiceId: m.invoiceId, amountMinor, currency },
});

/** A refund confirmed: the payment Refunded, its invoice Cancelled; a period charge ends its subscription. */
async function refunded(tenantId: string, payment: PaymentRecord, refundRef: string, now: string): Promise<Plan> {
  if (payment.status !== PaymentStatus.Paid) return nothing('stale');
  const plan: Plan = {
    outcome: 'applied',
    items: [
      update(
        billingKeys.payment(tenantId, payment.id),
        { status: PaymentStatus.Refunded, refundedAt: now, refundReference: refundRef, updatedAt: now },
        { expression: '#status = :paid', values: { ':paid': PaymentStatus.Paid } },
      ),
    ],
    audits: [
      { entityType: 'Payment', entityId: payment.id, action: 'Refunded', changes: { status: PaymentStatus.Refunded } },
    ],
    events: [
      {
        type: 'payment.refunded',
        data: { tenantId, paymentId: payment.id, amountMinor: payment.amountMinor, currency: payment.currency },
      },
    ],
    payments: ['Refunded'],
  };
  if (payment.invoiceId)
    plan.items.push(
      update(billingKeys.invoice(tenantId, payment.invoiceId), { status: InvoiceStatus.Cancelled, updatedAt: now }),
    );
  const sub =
    payment.periodCharge && payment.subscriptionId
      ? await read<SubscriptionRecord>(billingKeys.subscription(tenantId, payment.subscriptionId))
      : undefined;
  if (sub && Number(sub.status) !== SubscriptionStatus.Cancelled) {
    const ended = endSubscription(tenantId, sub, now, 'refunded');
    plan.items.push(...ended.items);
    plan.audits.push(...ended.audits);
    plan.events.push(...ended.events);
  }
  return plan;
}

async function plan(payload: WebhookPayload, now: string): Promise<Plan> {
  const { action } = payload;
  if (action.kind === 'ignored') return nothing('ignored');
  const tenantId = action.tenantId;
  const name = await tenantNameOf(tenantId, { consistent: true });
  if (name === null) return nothing('stale');
  const tenantName = name;
  const eventKey = `${payload.provider}:${payload.eventId}`;

  if (action.kind === 'payment.paid' || action.kind === 'payment.failed' || action.kind === 'payment.refunded') {
    const payment = await read<PaymentRecord>(billingKeys.payment(tenantId, action.paymentId));
    if (!payment) return nothing('stale');
    if (action.kind === 'payment.refunded') return refunded(tenantId, payment, action.refundRef, now);
    const paid = action.kind === 'payment.paid';
    // A late success may follow a failure (the customer retried at the provider); nothing else moves.
    if (payment.status !== PaymentStatus.Pending && !(paid && payment.status === PaymentStatus.Failed))
      return nothing('stale');
    if (!paid) {
      return {
        outcome: 'applied',
        items: [
          update(
            billingKeys.payment(tenantId, action.paymentId),
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
        events: [{ type: 'payment.failed', data: { tenantId, paymentId: action.paymentId, reason: action.reason } }],
        payments: ['Failed'],
      };
    }
    const sub = payment.subscriptionId
      ? ((await read<SubscriptionRecord>(billingKeys.subscription(tenantId, payment.subscriptionId))) ?? null)
      : null;
    const m = movement({
      tenantId,
      tenantName,
      sub,
      eventKey,
      amountMinor: action.amountMinor,
      currency: action.currency,
      chargeRef: action.chargeRef,
      paid: true,
      description: payment.description ?? 'Payment',
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
      events: [succeeded(tenantId, m, action.amountMinor, action.currency)],
      payments: ['Paid'],
    };
  }

  const subKey = billingKeys.subscription(tenantId, action.subscriptionId);
  const sub = await read<SubscriptionRecord>(subKey);
  if (!sub) return nothing('stale');
  const status = Number(sub.status);
  const audit = (what: string, changes: Record<string, unknown>): Audit => ({
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
          billingKeys.current(tenantId),
          { state: 'live', updatedAt: now },
          { expression: 'subscriptionId = :sid', values: { ':sid': action.subscriptionId } },
        ),
        limitsUp(tenantId, sub, trialExpiresAt, now),
      ];
      if (trialDays > 0)
        items.push(
          putNew({ ...billingKeys.trialUsed(tenantId), subscriptionId: action.subscriptionId, startedAt: now }),
        );
      const result: Plan = {
        outcome: 'applied',
        items,
        audits: [audit(trialDays > 0 ? 'TrialStarted' : 'Activated', { status: newStatus, renewalDate })],
        events: [
          {
            type: trialDays > 0 ? 'subscription.trial_started' : 'subscription.activated',
            data: { tenantId, subscriptionId: action.subscriptionId, planId: sub.planId, renewalDate },
          },
        ],
        payments: [],
      };
      if (action.amountMinor > 0) {
        const m = movement({
          tenantId,
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
        result.events.push(succeeded(tenantId, m, action.amountMinor, action.currency));
        result.payments.push('Paid');
      }
      return result;
    }
    case 'subscription.renewed': {
      if (!isLive(sub)) return nothing('stale');
      const from = sub.renewalDate ?? now;
      const renewalDate = addPeriod(from, period);
      const m = movement({
        tenantId,
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
          // Paid again: the plan's limits (back from Suspended; a trial's end is its first charge).
          limitsUp(tenantId, sub, null, now),
          ...m.items,
        ],
        pdf: m.pdf,
        audits: [
          audit('Renewed', { status: SubscriptionStatus.Active, renewalDate }),
          { entityType: 'Payment', entityId: m.paymentId, action: 'Paid', changes: { invoiceId: m.invoiceId } },
        ],
        events: [
          { type: 'subscription.renewed', data: { tenantId, subscriptionId: action.subscriptionId, renewalDate } },
          succeeded(tenantId, m, action.amountMinor, action.currency),
        ],
        payments: ['Paid'],
      };
    }
    case 'subscription.renewal_failed': {
      const pendingCheckout = sub.awaitingCheckout && status === SubscriptionStatus.Inactive;
      if (!isLive(sub) && !pendingCheckout) return nothing('stale');
      const m = movement({
        tenantId,
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
      // A declined first checkout leaves the subscription pending (the customer may try again); a
      // failed renewal suspends it, and the tenant is no longer on the plan's limits.
      const suspend = pendingCheckout
        ? []
        : [update(subKey, { status: SubscriptionStatus.Suspended, updatedAt: now }), limitsDown(tenantId, now)];
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
            : [{ type: 'subscription.suspended', data: { tenantId, subscriptionId: action.subscriptionId } }]),
          {
            type: 'payment.failed',
            data: { tenantId, paymentId: m.paymentId, invoiceId: m.invoiceId, reason: action.reason },
          },
        ],
        payments: ['Failed'],
      };
    }
    case 'subscription.cancelled': {
      if (status === SubscriptionStatus.Cancelled) return nothing('stale');
      return { outcome: 'applied', ...endSubscription(tenantId, sub, now, 'provider'), payments: [] };
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
  const marker = billingKeys.webhookEvent(payload.provider, payload.eventId);
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
  const applied = webhookEventApplied();
  try {
    // Several audit entries (one per record moved), so they travel as items of a change without one of its own.
    await commitChange(
      [
        orConflict(
          putNew({
            ...marker,
            provider: payload.provider,
            eventId: payload.eventId,
            eventType: payload.eventType,
            outcome: p.outcome,
            tenantId,
            receivedAt: now,
          }),
          applied,
        ),
        ...p.items,
        ...p.audits.map((a) => auditPut({ ...a, actor: null, tenantId }, now)),
        ...p.events.map((e) => integrationEventPut(e.type, e.data, now)),
      ],
      null,
      { now },
    );
  } catch (err) {
    if (err === applied) return duplicate();
    if (err instanceof ApiError)
      // The records moved between reading and writing: the queue retries and the plan is made again.
      throw new Error(`Billing records changed while applying ${payload.eventId}; will retry`);
    throw err;
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
