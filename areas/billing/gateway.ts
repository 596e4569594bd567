import { ApiError } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import type { ProviderId } from './records.ts';

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
  /** Exchanges a provider token (from the provider's card form) for a stored method; throws when declined. */
  attachMethod(token: string): Promise<AttachedMethod>;
}

export const paymentsNotConfigured = () =>
  new ApiError(503, 'PAYMENTS_NOT_CONFIGURED', 'Payment providers are not configured for this deployment');

export const methodDeclined = () =>
  new ApiError(400, 'PAYMENT_METHOD_DECLINED', 'The provider declined this payment method');

/**
 * The adapter of a provider. The local stage uses the stand-in that the local server also serves;
 * a deployed stage needs the provider's real adapter (configured through PAYMENT_PROVIDER_<A|B>_API_URL
 * and its key in SSM), and answers 503 PAYMENTS_NOT_CONFIGURED until one is installed.
 */
export async function paymentGateway(provider: ProviderId): Promise<PaymentGateway> {
  if (installed[provider]) return installed[provider];
  if (config.stage !== 'local') throw paymentsNotConfigured();
  return (await import('#local/providers/payment-provider.ts')).localGateway(provider);
}

const installed: Partial<Record<ProviderId, PaymentGateway>> = {};

/** Installs a provider's adapter (a deployed build's real adapter, or a test double). */
export function installPaymentGateway(provider: ProviderId, gateway: PaymentGateway | undefined) {
  if (gateway) installed[provider] = gateway;
  else delete installed[provider];
}
