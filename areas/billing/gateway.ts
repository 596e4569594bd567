import { paymentsNotConfigured } from './errors.ts';
import { definePort } from '#shared/platform/ports.ts';
import type { ProviderId } from './vocabulary.ts';

/** What the platform asks of a payment provider; each provider has one adapter behind this. */
export interface CheckoutRequest {
  tenantId: string;
  /** What the checkout pays for: a subscription's first period, or one payment. */
  kind: 'subscription' | 'payment';
  /** The subscription id or the payment id; comes back in the provider's webhook metadata. */
  reference: string;
  amountMinor: number;
  /** The price of each later period (subscriptions), charged by the provider on renewal. */
  recurringMinor?: number;
  currency: string;
  description: string;
}

export interface AttachedMethod {
  providerMethodId: string;
  lastFourDigits: string;
  cardType: string;
  expiryMonth: number;
  expiryYear: number;
}

export interface PaymentGateway {
  provider: ProviderId;
  /** A hosted checkout the customer pays at; its completion arrives as a webhook. */
  createCheckout(req: CheckoutRequest): Promise<{ sessionId: string; checkoutUrl: string; expiresAt: string }>;
  /** Closes an unpaid checkout so it can no longer be paid: false when it was completed already. */
  expireCheckout(sessionId: string): Promise<boolean>;
  /** Charges a stored method; the outcome arrives as a webhook. */
  charge(req: CheckoutRequest & { providerMethodId: string }): Promise<{ sessionId: string }>;
  /** Asks for a refund of a settled charge; the provider confirms with a webhook. */
  refund(req: {
    tenantId: string;
    paymentId: string;
    providerReferenceId: string;
    amountMinor: number;
    currency: string;
  }): Promise<void>;
  /** Stops the provider's recurring charges of a subscription; the provider confirms with a webhook. */
  cancelSubscription(req: { tenantId: string; subscriptionId: string }): Promise<void>;
  /** Exchanges a provider token (from the provider's card form) for a stored method; throws when declined. */
  attachMethod(token: string): Promise<AttachedMethod>;
}

/** The adapter of each payment provider. */
export interface PaymentProviders {
  gateway(provider: ProviderId): PaymentGateway;
}

/**
 * The payment providers port: the local server and the test setup install the local stand-ins
 * (local/providers/payment-provider.ts); a deployed build installs the providers' real adapters.
 * Unlike the AWS ports there is no default, so no deployed bundle carries a stand-in: nothing
 * installed is 503 PAYMENTS_NOT_CONFIGURED.
 */
export const paymentProviders = definePort<PaymentProviders | undefined>(() => undefined);

/** The adapter of a provider, from the installed port; none installed is 503 PAYMENTS_NOT_CONFIGURED. */
export function paymentGateway(provider: ProviderId): PaymentGateway {
  const providers = paymentProviders();
  if (!providers) throw paymentsNotConfigured();
  return providers.gateway(provider);
}
