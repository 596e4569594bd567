import * as z from 'zod/mini';
import { once } from '#shared/routes/types.ts';
import { messageKind } from '#shared/queue/messages.ts';
import type { PaymentProviderName } from './signatures.ts';

/**
 * Provider webhook bodies, checked before anything is queued, and turned into one billing action
 * each. Provider A sends `{id, type, created, data: {object}}`; provider B sends payment status
 * callbacks `{eventId, paymentReference, tenantId, providerPaymentId, status, amount, currency}`.
 * Our own ids travel in the provider's metadata, set when the checkout or charge was created.
 */
/** The providers' body schemas, built on first use like every schema of the project. */
const providerSchemas = once(() => {
  const uuid = z.string().check(z.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/));
  const ref = z.string().check(z.minLength(1), z.maxLength(200));
  const minor = z.int().check(z.minimum(0), z.maximum(1e11));
  const currency = z.string().check(z.regex(/^[A-Z]{3}$/));
  const metadata = z.object({ tenantId: uuid, kind: z.enum(['subscription', 'payment']), reference: uuid });
  return {
    metadata,
    providerAEnvelope: z.object({
      id: ref,
      type: z.string().check(z.minLength(1), z.maxLength(100)),
      created: z.int(),
      data: z.object({ object: z.record(z.string(), z.unknown()) }),
    }),
    aObjects: {
      'checkout.completed': z.object({ id: ref, amount_total: minor, currency, charge: z.nullable(ref), metadata }),
      'invoice.payment_succeeded': z.object({ id: ref, amount_paid: minor, currency, charge: ref, metadata }),
      'invoice.payment_failed': z.object({
        id: ref,
        amount_due: minor,
        currency,
        charge: z.nullable(ref),
        failure_message: z.optional(z.string().check(z.maxLength(500))),
        metadata,
      }),
      'charge.refunded': z.object({ id: ref, refund: ref, metadata }),
      'subscription.deleted': z.object({ id: uuid, metadata }),
    },
    providerBCallback: z.object({
      eventId: ref,
      type: z.string().check(z.minLength(1), z.maxLength(100)),
      tenantId: uuid,
      paymentReference: uuid,
      providerPaymentId: ref,
      status: z.string().check(z.minLength(1), z.maxLength(40)),
      amount: minor,
      currency,
      reason: z.optional(z.string().check(z.maxLength(500))),
    }),
  };
});
type ProviderSchemas = ReturnType<typeof providerSchemas>;
type AObjectKind = keyof ProviderSchemas['aObjects'];
type AObject = { [K in AObjectKind]: { type: K; o: z.output<ProviderSchemas['aObjects'][K]> } }[AObjectKind];

/** What a verified event asks the platform to do; also the schema the webhook worker parses its message with. */
const billingAction = once(() => {
  const money = { amountMinor: z.number(), currency: z.string(), chargeRef: z.nullable(z.string()) };
  const ofSubscription = { tenantId: z.string(), subscriptionId: z.string() };
  const ofPayment = { tenantId: z.string(), paymentId: z.string() };
  return z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('subscription.checkout'), ...ofSubscription, ...money }),
    z.object({ kind: z.literal('subscription.renewed'), ...ofSubscription, ...money }),
    z.object({ kind: z.literal('subscription.renewal_failed'), ...ofSubscription, reason: z.string(), ...money }),
    z.object({ kind: z.literal('subscription.cancelled'), ...ofSubscription }),
    z.object({ kind: z.literal('payment.paid'), ...ofPayment, ...money }),
    z.object({ kind: z.literal('payment.failed'), ...ofPayment, reason: z.string(), ...money }),
    z.object({ kind: z.literal('payment.refunded'), ...ofPayment, refundRef: z.string() }),
    z.object({ kind: z.literal('ignored'), eventType: z.string() }),
  ]);
});

type BillingAction = z.output<ReturnType<typeof billingAction>>;

/** A verified provider event on its way to the webhook worker (the message id is `{provider}:{eventId}`). */
export const PAYMENT_WEBHOOK = messageKind('webhooks', 'payment.webhook', () =>
  z.object({
    provider: z.enum(['payment-provider-a', 'payment-provider-b']),
    eventId: z.string(),
    eventType: z.string(),
    action: billingAction(),
  }),
);

export type WebhookPayload = z.output<ReturnType<typeof PAYMENT_WEBHOOK.schema>>;

interface ParsedEvent {
  eventId: string;
  eventType: string;
  action: BillingAction;
}

export type ParseOutcome = { ok: true; event: ParsedEvent } | { ok: false; message: string };

const issues = (e: z.core.$ZodError) => e.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');

function parseA(body: unknown): ParseOutcome {
  const { providerAEnvelope, aObjects } = providerSchemas();
  const env = z.safeParse(providerAEnvelope, body);
  if (!env.success) return { ok: false, message: issues(env.error) };
  const { id: eventId, type } = env.data;
  const schema = aObjects[type as AObjectKind];
  if (!schema) return { ok: true, event: { eventId, eventType: type, action: { kind: 'ignored', eventType: type } } };
  const parsed = z.safeParse(schema as z.core.$ZodType, env.data.data.object);
  if (!parsed.success) return { ok: false, message: issues(parsed.error) };
  // `schema` was looked up by `type`, so the pair is one member of the union; the compiler cannot follow the lookup.
  const e = { type, o: parsed.data } as AObject;
  const { tenantId, kind, reference } = e.o.metadata;
  const bySubscription = kind === 'subscription';
  const action = ((): BillingAction => {
    switch (e.type) {
      case 'checkout.completed':
        return bySubscription
          ? {
              kind: 'subscription.checkout',
              tenantId,
              subscriptionId: reference,
              amountMinor: e.o.amount_total,
              currency: e.o.currency,
              chargeRef: e.o.charge,
            }
          : {
              kind: 'payment.paid',
              tenantId,
              paymentId: reference,
              amountMinor: e.o.amount_total,
              currency: e.o.currency,
              chargeRef: e.o.charge,
            };
      case 'invoice.payment_succeeded':
        return bySubscription
          ? {
              kind: 'subscription.renewed',
              tenantId,
              subscriptionId: reference,
              amountMinor: e.o.amount_paid,
              currency: e.o.currency,
              chargeRef: e.o.charge,
            }
          : {
              kind: 'payment.paid',
              tenantId,
              paymentId: reference,
              amountMinor: e.o.amount_paid,
              currency: e.o.currency,
              chargeRef: e.o.charge,
            };
      case 'invoice.payment_failed': {
        const failed = {
          amountMinor: e.o.amount_due,
          currency: e.o.currency,
          chargeRef: e.o.charge,
          reason: e.o.failure_message ?? 'Payment failed',
        };
        return bySubscription
          ? { kind: 'subscription.renewal_failed', tenantId, subscriptionId: reference, ...failed }
          : { kind: 'payment.failed', tenantId, paymentId: reference, ...failed };
      }
      case 'charge.refunded':
        return bySubscription
          ? { kind: 'ignored', eventType: type }
          : { kind: 'payment.refunded', tenantId, paymentId: reference, refundRef: e.o.refund };
      case 'subscription.deleted':
        return { kind: 'subscription.cancelled', tenantId, subscriptionId: e.o.id };
    }
  })();
  return { ok: true, event: { eventId, eventType: type, action } };
}

function parseB(body: unknown): ParseOutcome {
  const parsed = z.safeParse(providerSchemas().providerBCallback, body);
  if (!parsed.success) return { ok: false, message: issues(parsed.error) };
  const b = parsed.data;
  const money = { amountMinor: b.amount, currency: b.currency, chargeRef: b.providerPaymentId };
  const base = { tenantId: b.tenantId, paymentId: b.paymentReference };
  const eventType = `${b.type}:${b.status}`;
  const action = ((): BillingAction => {
    if (b.type !== 'payment.status') return { kind: 'ignored', eventType };
    switch (b.status) {
      case 'PAID':
        return { kind: 'payment.paid', ...base, ...money };
      case 'FAILED':
        return { kind: 'payment.failed', ...base, ...money, reason: b.reason ?? 'Payment failed' };
      case 'REFUNDED':
        return { kind: 'payment.refunded', ...base, refundRef: b.providerPaymentId };
      default:
        return { kind: 'ignored', eventType };
    }
  })();
  return { ok: true, event: { eventId: b.eventId, eventType, action } };
}

/** Parses a verified raw body; a body that is not JSON or not the provider's shape is refused. */
export function parseWebhook(provider: PaymentProviderName, rawBody: string): ParseOutcome {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return { ok: false, message: 'Body is not valid JSON' };
  }
  return provider === 'payment-provider-a' ? parseA(body) : parseB(body);
}
