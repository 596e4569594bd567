/**
 * Money is integer minor units everywhere inside the platform; the API shows and accepts decimals
 * with exactly the currency's number of decimals (ISO 4217 exponent).
 */
export const CURRENCY_DECIMALS: Readonly<Record<string, number>> = {
  USD: 2,
  EUR: 2,
  GBP: 2,
  CHF: 2,
  CAD: 2,
  AUD: 2,
  SEK: 2,
  NOK: 2,
  DKK: 2,
  PLN: 2,
  JPY: 0,
  KRW: 0,
  KWD: 3,
  BHD: 3,
};

export const isCurrency = (code: string) => Object.hasOwn(CURRENCY_DECIMALS, code);

/** The largest amount one payment may carry, in major units (guards float precision). */
export const MAX_AMOUNT_MAJOR = 1_000_000;

/**
 * Minor units of a decimal amount, or the reason it is not acceptable: not positive, more
 * decimals than the currency has, or above the limit.
 */
export function toMinor(
  amount: number,
  currency: string,
): { ok: true; minor: number } | { ok: false; message: string } {
  const decimals = CURRENCY_DECIMALS[currency];
  if (decimals === undefined) return { ok: false, message: `Unknown currency ${currency}` };
  if (!Number.isFinite(amount) || amount <= 0) return { ok: false, message: 'Amount must be greater than zero' };
  if (amount > MAX_AMOUNT_MAJOR) return { ok: false, message: `Amount must be at most ${MAX_AMOUNT_MAJOR}` };
  const [, fraction = ''] = String(amount).split('.');
  if (fraction.length > decimals)
    return { ok: false, message: `${currency} amounts have at most ${decimals} decimals` };
  return { ok: true, minor: Math.round(amount * 10 ** decimals) };
}

export const toMajor = (minor: number, currency: string) => minor / 10 ** (CURRENCY_DECIMALS[currency] ?? 2);

/** `USD 29.00`: the amount with all the currency's decimals, for invoices. */
export const formatMoney = (minor: number, currency: string) =>
  `${currency} ${toMajor(minor, currency).toFixed(CURRENCY_DECIMALS[currency] ?? 2)}`;
