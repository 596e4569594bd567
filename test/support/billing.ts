import { afterAll, beforeAll } from 'vitest';
import { startS3 } from '#local/s3.ts';
import { setWebhookTransport } from '#local/providers/payment-provider.ts';
import { signingSecret } from '#areas/billing/secrets.ts';
import { signWebhook, type PaymentProviderName } from '#areas/billing/signatures.ts';
import { s3 } from '#shared/platform/s3.ts';
import { s3OnFirstUse } from '#shared/platform/s3-on-first-use.ts';
import { invoke } from './invoke.ts';
import { tempDir } from './temp-dir.ts';

/**
 * Billing in the integration tier: a local S3 for invoice PDFs, and the local payment providers'
 * webhooks delivered in-process to the real webhook handler (whose queue runs the worker at once).
 */
export function useBillingStandIns() {
  beforeAll(startBillingStandIns);
  afterAll(async () => {
    setWebhookTransport(undefined);
    await (await running)?.stop();
    running = undefined;
  });
}

let running: ReturnType<typeof startS3> | undefined;

/** Starts the stand-ins once per test file (also from a record creator, mid-test). */
export async function startBillingStandIns() {
  running ??= startS3(tempDir('billing-s3-'));
  await running;
  s3.install(undefined);
  s3OnFirstUse.install(undefined);
  setWebhookTransport(
    async (d) =>
      (await invoke('POST', d.path, { rawBody: d.rawBody, headers: d.headers, contentType: 'application/json' }))
        .status,
  );
}

/** Posts a webhook body signed as the provider would (or with the overrides a test tampers with). */
export async function postWebhook(
  provider: PaymentProviderName,
  body: unknown,
  opts: { secret?: string; at?: number; rawBody?: string; headers?: Record<string, string> } = {},
) {
  const rawBody = opts.rawBody ?? JSON.stringify(body);
  const signed = signWebhook(
    provider,
    opts.secret ?? (await signingSecret(provider)),
    rawBody,
    opts.at ?? Math.floor(Date.now() / 1000),
  );
  return invoke('POST', `/api/webhooks/${provider}`, {
    rawBody,
    headers: { ...signed, ...opts.headers },
    contentType: 'application/json',
  });
}
