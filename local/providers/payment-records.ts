import type { Key } from '#shared/data/keys.ts';
import type { CheckoutRequest } from '#areas/billing/gateway.ts';
import type { ProviderId } from '#areas/billing/vocabulary.ts';
import type { PaymentProviderName } from '#areas/billing/signatures.ts';

/** The local payment providers' own records (never deployed): checkout sessions, subscriptions, sent webhooks. */

const ITEM_SK = 'ITEM';

export const localPaymentKeys = {
  session: (id: string): Key => ({ pk: `LOCALPAY#SESSION#${id}`, sk: ITEM_SK }),
  subscription: (id: string): Key => ({ pk: `LOCALPAY#SUBSCRIPTION#${id}`, sk: ITEM_SK }),
  webhookLog: () => 'LOCALPAY#WEBHOOKS',
  webhookLogEntry: (sentAt: string): Key => ({ pk: 'LOCALPAY#WEBHOOKS', sk: `${sentAt}#${crypto.randomUUID()}` }),
};

export interface Session extends CheckoutRequest {
  id: string;
  provider: ProviderId;
  state: 'open' | 'paid' | 'declined' | 'expired';
  expiresAt: string;
  providerMethodId?: string;
}

/** The provider's side of a subscription: what it charges each period, while active. */
export interface ProviderSubscription {
  tenantId: string;
  amountMinor: number;
  currency: string;
  active: boolean;
}

export interface Delivery {
  provider: PaymentProviderName;
  path: string;
  headers: Record<string, string>;
  rawBody: string;
}

export interface LoggedDelivery extends Delivery {
  responseStatus: number;
  sentAt: string;
}
