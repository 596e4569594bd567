import { randomBytes } from 'node:crypto';
import { config } from '#shared/platform/config.ts';
import { parameterStore } from '#shared/platform/ports.ts';
import type { PaymentProviderName } from './signatures.ts';

const ENV: Record<PaymentProviderName, string> = {
  'payment-provider-a': 'PAYMENT_PROVIDER_A_WEBHOOK_SECRET',
  'payment-provider-b': 'PAYMENT_PROVIDER_B_WEBHOOK_SECRET',
};

const webhookSecretParam = (provider: PaymentProviderName) =>
  `${config.paramPrefix}/providers/${provider}/webhook-secret`;

const cache = new Map<PaymentProviderName, Promise<string[]>>();

/**
 * The webhook signing secrets of a provider (comma-separated: during a rotation the old and the new
 * one are both accepted): the environment variable when set, else the SecureString in SSM. The
 * local stage generates and stores a secret when neither exists, so its stand-in and the API agree.
 * Read once per cold start.
 */
export function webhookSecrets(provider: PaymentProviderName): Promise<string[]> {
  let pending = cache.get(provider);
  if (!pending) {
    pending = (async () => {
      const fromEnv = process.env[ENV[provider]];
      const value = fromEnv || (await storedSecret(provider));
      return value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    })();
    pending.catch(() => cache.delete(provider));
    cache.set(provider, pending);
  }
  return pending;
}

async function storedSecret(provider: PaymentProviderName): Promise<string> {
  const store = await parameterStore();
  const name = webhookSecretParam(provider);
  const stored = await store.get(name, { decrypt: true });
  if (stored) return stored.value;
  if (config.stage !== 'local') throw new Error(`Webhook secret ${name} (or ${ENV[provider]}) is not configured`);
  try {
    await store.put(name, `whsec_${randomBytes(24).toString('base64url')}`, { secure: true, overwrite: false });
  } catch (err) {
    if ((err as { name?: string }).name !== 'ParameterAlreadyExists') throw err;
  }
  return (await store.get(name, { decrypt: true }))!.value;
}

/** The secret a provider signs with: the first of the list. */
export const signingSecret = async (provider: PaymentProviderName) => (await webhookSecrets(provider))[0]!;
