import { commitChange, orConflict, putItem, updateItem } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get, getOr404 } from '#shared/data/read.ts';
import { ApiError, conflict } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import { paymentMethodDeclined } from '#areas/billing/errors.ts';
import { checkoutCompleted, checkoutExpired, providerSubscriptionCancelled } from './errors.ts';
import type { AttachedMethod, CheckoutRequest, PaymentGateway, PaymentProviders } from '#areas/billing/gateway.ts';
import { signingSecret } from '#areas/billing/secrets.ts';
import { signWebhook, type PaymentProviderName } from '#areas/billing/signatures.ts';
import { PaymentProvider, type ProviderId } from '#areas/billing/vocabulary.ts';
import {
  localPaymentKeys,
  type Delivery,
  type LoggedDelivery,
  type ProviderSubscription,
  type Session,
} from './payment-records.ts';

export type { Session };

/**
 * The local stand-in of both payment providers: checkout sessions and stored cards live in the
 * table, and every outcome (pay, decline, renew, refund, cancel) reaches the API the way the real
 * provider's would, as a signed webhook over HTTP. The local server and the test setup install it
 * as the payment providers port (`localPaymentProviders`); no deployed bundle imports it.
 * Test tokens (documented in the README):
 */
const TEST_CARDS: Readonly<Record<string, AttachedMethod | 'declined'>> = {
  tok_visa: {
    providerMethodId: 'pm_visa',
    lastFourDigits: '4242',
    cardType: 'Visa',
    expiryMonth: 12,
    expiryYear: 2034,
  },
  tok_mastercard: {
    providerMethodId: 'pm_mastercard',
    lastFourDigits: '4444',
    cardType: 'Mastercard',
    expiryMonth: 6,
    expiryYear: 2033,
  },
  /** Attaches, but every charge on it fails. */
  tok_chargeDeclined: {
    providerMethodId: 'pm_charge_declined',
    lastFourDigits: '0341',
    cardType: 'Visa',
    expiryMonth: 1,
    expiryYear: 2035,
  },
  tok_declined: 'declined',
};

const CHECKOUT_TTL_MS = 30 * 60 * 1000;
const providerName = (p: ProviderId): PaymentProviderName =>
  p === PaymentProvider.A ? 'payment-provider-a' : 'payment-provider-b';

export type WebhookTransport = (d: Delivery) => Promise<number>;

const httpTransport: WebhookTransport = async (d) => {
  const res = await fetch(`${config.publicBaseUrl}${d.path}`, { method: 'POST', headers: d.headers, body: d.rawBody });
  await res.arrayBuffer();
  return res.status;
};
let transport: WebhookTransport = httpTransport;
/** Tests deliver in-process instead of over HTTP; undefined restores HTTP. */
export const setWebhookTransport = (t: WebhookTransport | undefined) => {
  transport = t ?? httpTransport;
};

/** The stand-in's own writes: not records of the platform, so no audit entry. */
const write = (...items: Parameters<typeof commitChange>[0]) => commitChange(items, null);

/** Signs and sends one webhook, and keeps it in the stand-in's log so it can be replayed exactly. */
async function sendWebhook(
  provider: PaymentProviderName,
  body: Record<string, unknown>,
): Promise<{ responseStatus: number; eventId: string }> {
  const rawBody = JSON.stringify(body);
  const headers = {
    'content-type': 'application/json',
    ...signWebhook(provider, await signingSecret(provider), rawBody, Math.floor(Date.now() / 1000)),
  };
  const delivery: Delivery = { provider, path: `/api/webhooks/${provider}`, headers, rawBody };
  const responseStatus = await transport(delivery);
  const sentAt = new Date().toISOString();
  await write(putItem({ ...localPaymentKeys.webhookLogEntry(sentAt), ...delivery, responseStatus, sentAt }));
  return { responseStatus, eventId: String(body.id ?? body.eventId) };
}

/** Every webhook the stand-ins sent, oldest first. */
export async function webhookLog() {
  const items = await queryItems<LoggedDelivery>({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': localPaymentKeys.webhookLog() },
    ConsistentRead: true,
  });
  return items.map((i) => ({
    provider: i.provider,
    path: i.path,
    headers: i.headers,
    rawBody: i.rawBody,
    responseStatus: i.responseStatus,
    sentAt: i.sentAt,
  }));
}

export const getSession = (id: string) => get<Session>(localPaymentKeys.session(id), { consistent: true });

async function openSession(provider: ProviderId, req: CheckoutRequest, providerMethodId?: string): Promise<Session> {
  const session: Session = {
    ...req,
    id: crypto.randomUUID(),
    provider,
    state: 'open',
    expiresAt: new Date(Date.now() + CHECKOUT_TTL_MS).toISOString(),
    ...(providerMethodId ? { providerMethodId } : {}),
  };
  await write(putItem({ ...localPaymentKeys.session(session.id), ...session }));
  return session;
}

/** Moves an open session to `state`; `closed` answers when it is not open any more. */
const closeSession = (sessionId: string, state: Session['state'], closed: ApiError) =>
  write(
    orConflict(
      updateItem(
        localPaymentKeys.session(sessionId),
        { state },
        { condition: '#was = :open', names: { '#was': 'state' }, values: { ':open': 'open' } },
      ),
      closed,
    ),
  );

const event = (type: string, object: Record<string, unknown>) => ({
  id: `evt_${crypto.randomUUID()}`,
  type,
  created: Math.floor(Date.now() / 1000),
  data: { object },
});
const meta = (s: Pick<Session, 'tenantId' | 'kind' | 'reference'>) => ({
  tenantId: s.tenantId,
  kind: s.kind,
  reference: s.reference,
});

function callbackB(
  s: Pick<Session, 'tenantId' | 'reference' | 'amountMinor' | 'currency'>,
  status: string,
  providerPaymentId: string,
  reason?: string,
) {
  return {
    eventId: `bev_${crypto.randomUUID()}`,
    type: 'payment.status',
    tenantId: s.tenantId,
    paymentReference: s.reference,
    providerPaymentId,
    status,
    amount: s.amountMinor,
    currency: s.currency,
    ...(reason ? { reason } : {}),
  };
}

/**
 * Completes a session as the customer would: pay or decline. A paid subscription session also
 * starts the provider's own subscription record, which the renewal routes charge later.
 */
export async function settleSession(sessionId: string, outcome: 'pay' | 'decline') {
  const session = await getOr404<Session>(localPaymentKeys.session(sessionId), 'Checkout session', {
    consistent: true,
  });
  if (session.state === 'expired' || Date.parse(session.expiresAt) < Date.now()) throw checkoutExpired();
  const fails = outcome === 'decline' || !!session.providerMethodId?.startsWith('pm_charge_declined');
  await closeSession(sessionId, fails ? 'declined' : 'paid', checkoutCompleted());
  const chargeId = `ch_${crypto.randomUUID()}`;
  const provider = providerName(session.provider);
  if (provider === 'payment-provider-b')
    return sendWebhook(
      provider,
      callbackB(session, fails ? 'FAILED' : 'PAID', chargeId, fails ? 'Card declined' : undefined),
    );
  if (fails) {
    return sendWebhook(
      provider,
      event('invoice.payment_failed', {
        id: `in_${crypto.randomUUID()}`,
        amount_due: session.amountMinor,
        currency: session.currency,
        charge: null,
        failure_message: 'Card declined',
        metadata: meta(session),
      }),
    );
  }
  if (session.kind === 'subscription') {
    const sub: ProviderSubscription = {
      tenantId: session.tenantId,
      amountMinor: session.recurringMinor ?? session.amountMinor,
      currency: session.currency,
      active: true,
    };
    await write(putItem({ ...localPaymentKeys.subscription(session.reference), ...sub }));
  }
  return sendWebhook(
    provider,
    event('checkout.completed', {
      id: session.id,
      amount_total: session.amountMinor,
      currency: session.currency,
      charge: session.amountMinor > 0 ? chargeId : null,
      metadata: meta(session),
    }),
  );
}

const providerSubscription = (subscriptionId: string) =>
  getOr404<ProviderSubscription>(localPaymentKeys.subscription(subscriptionId), 'Provider subscription', {
    consistent: true,
  });

/** Provider A charges a subscription's next period (or fails to); a cancelled one is charged no more (409). */
export async function renewSubscription(subscriptionId: string, succeed: boolean) {
  const sub = await providerSubscription(subscriptionId);
  if (!sub.active) throw providerSubscriptionCancelled();
  const m = { tenantId: sub.tenantId, kind: 'subscription' as const, reference: subscriptionId };
  const invoiceId = `in_${crypto.randomUUID()}`;
  return sendWebhook(
    'payment-provider-a',
    succeed
      ? event('invoice.payment_succeeded', {
          id: invoiceId,
          amount_paid: sub.amountMinor,
          currency: sub.currency,
          charge: `ch_${crypto.randomUUID()}`,
          metadata: m,
        })
      : event('invoice.payment_failed', {
          id: invoiceId,
          amount_due: sub.amountMinor,
          currency: sub.currency,
          charge: null,
          failure_message: 'Card declined on renewal',
          metadata: m,
        }),
  );
}

/** Provider A stops a subscription's renewals and says so with `subscription.deleted`. */
async function cancelProviderSubscription(subscriptionId: string) {
  const sub = await providerSubscription(subscriptionId);
  if (!sub.active) return;
  await write(updateItem(localPaymentKeys.subscription(subscriptionId), { active: false }));
  await sendWebhook(
    'payment-provider-a',
    event('subscription.deleted', {
      id: subscriptionId,
      metadata: { tenantId: sub.tenantId, kind: 'subscription', reference: subscriptionId },
    }),
  );
}

export function localGateway(provider: ProviderId): PaymentGateway {
  return {
    provider,
    async createCheckout(req) {
      const s = await openSession(provider, req);
      return {
        sessionId: s.id,
        checkoutUrl: `${config.publicBaseUrl}/_local/checkout/${s.id}`,
        expiresAt: s.expiresAt,
      };
    },
    async expireCheckout(sessionId) {
      try {
        await closeSession(sessionId, 'expired', conflict('Not open'));
        return true;
      } catch (err) {
        if (err instanceof ApiError && err.status === 409) return (await getSession(sessionId))?.state === 'expired';
        throw err;
      }
    },
    async charge(req) {
      const s = await openSession(provider, req, req.providerMethodId);
      await settleSession(s.id, 'pay');
      return { sessionId: s.id };
    },
    async refund(req) {
      const name = providerName(provider);
      const refundId = `re_${crypto.randomUUID()}`;
      const s = {
        tenantId: req.tenantId,
        kind: 'payment' as const,
        reference: req.paymentId,
        amountMinor: req.amountMinor,
        currency: req.currency,
      };
      await sendWebhook(
        name,
        name === 'payment-provider-a'
          ? event('charge.refunded', { id: req.providerReferenceId, refund: refundId, metadata: meta(s) })
          : callbackB(s, 'REFUNDED', refundId),
      );
    },
    async cancelSubscription(req) {
      await cancelProviderSubscription(req.subscriptionId);
    },
    async attachMethod(token) {
      const card = TEST_CARDS[token];
      if (!card || card === 'declined') throw paymentMethodDeclined();
      return { ...card, providerMethodId: `${card.providerMethodId}_${crypto.randomUUID().slice(0, 8)}` };
    },
  };
}

/** The payment providers port as the local server and the tests install it. */
export const localPaymentProviders: PaymentProviders = { gateway: localGateway };
