import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures of the two payment providers. Both sign `<unix seconds>.<raw body>` with
 * HMAC-SHA256 and a shared secret; a signature more than TOLERANCE_SECONDS away from now is
 * refused, so a captured request cannot be replayed later.
 */
export const TOLERANCE_SECONDS = 300;
export type PaymentProviderName = 'payment-provider-a' | 'payment-provider-b';

const mac = (secret: string, timestamp: string, rawBody: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

const fresh = (timestamp: string, nowSeconds: number) =>
  /^\d{1,12}$/.test(timestamp) && Math.abs(nowSeconds - Number(timestamp)) <= TOLERANCE_SECONDS;

/** Provider A: `Webhook-Signature: t=<seconds>,v1=<hex>[,v1=<hex>...]` (several v1 during a secret rotation). */
export function signProviderA(secret: string, rawBody: string, timestamp: number): Record<string, string> {
  return { 'webhook-signature': `t=${timestamp},v1=${mac(secret, String(timestamp), rawBody).toString('hex')}` };
}

export function verifyProviderA(
  headers: Record<string, string | undefined>,
  rawBody: string,
  secrets: readonly string[],
  nowSeconds: number,
): boolean {
  const header = headers['webhook-signature'] ?? '';
  const parts = header.split(',').map((p) => p.trim().split('='));
  const timestamp = parts.find(([k]) => k === 't')?.[1] ?? '';
  const candidates = parts
    .filter(([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/i.test(v ?? ''))
    .map(([, v]) => Buffer.from(v!, 'hex'));
  if (!fresh(timestamp, nowSeconds) || !candidates.length) return false;
  return secrets.some((secret) => {
    const expected = mac(secret, timestamp, rawBody);
    return candidates.some((c) => sameBytes(c, expected));
  });
}

/** Provider B: `X-Timestamp: <seconds>` and `X-Signature: <base64 HMAC>`. */
export function signProviderB(secret: string, rawBody: string, timestamp: number): Record<string, string> {
  return {
    'x-timestamp': String(timestamp),
    'x-signature': mac(secret, String(timestamp), rawBody).toString('base64'),
  };
}

export function verifyProviderB(
  headers: Record<string, string | undefined>,
  rawBody: string,
  secrets: readonly string[],
  nowSeconds: number,
): boolean {
  const timestamp = headers['x-timestamp'] ?? '';
  const signature = headers['x-signature'] ?? '';
  if (!fresh(timestamp, nowSeconds) || !/^[A-Za-z0-9+/]{43}=$/.test(signature)) return false;
  const given = Buffer.from(signature, 'base64');
  return secrets.some((secret) => sameBytes(given, mac(secret, timestamp, rawBody)));
}

export const signWebhook = (provider: PaymentProviderName, secret: string, rawBody: string, timestamp: number) =>
  provider === 'payment-provider-a'
    ? signProviderA(secret, rawBody, timestamp)
    : signProviderB(secret, rawBody, timestamp);

export const verifyWebhook = (
  provider: PaymentProviderName,
  headers: Record<string, string | undefined>,
  rawBody: string,
  secrets: readonly string[],
  nowSeconds: number,
) =>
  provider === 'payment-provider-a'
    ? verifyProviderA(headers, rawBody, secrets, nowSeconds)
    : verifyProviderB(headers, rawBody, secrets, nowSeconds);
