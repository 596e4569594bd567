/**
 * Money is integer minor units everywhere inside the platform; the API shows and accepts decimals
 * with exactly the currency's number of decimals (ISO 4217 exponent).
 */
const CURRENCY_DECIMALS: Readonly<Record<string, number>> = {
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

/** The shape of a currency code the API accepts before the list above is consulted. */
export const CURRENCY_PATTERN = /^[A-Z]{3}$/;

/** The largest amount one payment may carry, in major units (guards float precision). */
const MAX_AMOUNT_MAJOR = 1_000_000;

/**
 * Minor units of a decimal amount, or the reason it is not acceptable. The check is made on the
 * minor amount itself: it must be a whole number of at least 1 whose decimal form is exactly the
 * amount given (so `1e-7` USD is 0 cents, refused, and `1.001` USD has a decimal too many), and
 * the amount at most MAX_AMOUNT_MAJOR.
 */
export function toMinor(
  amount: number,
  currency: string,
): { ok: true; minor: number } | { ok: false; message: string } {
  const decimals = CURRENCY_DECIMALS[currency];
  if (decimals === undefined) return { ok: false, message: `Unknown currency ${currency}` };
  if (!Number.isFinite(amount) || amount <= 0) return { ok: false, message: 'Amount must be greater than zero' };
  if (amount > MAX_AMOUNT_MAJOR) return { ok: false, message: `Amount must be at most ${MAX_AMOUNT_MAJOR}` };
  const scale = 10 ** decimals;
  const minor = Math.round(amount * scale);
  if (minor < 1) return { ok: false, message: `Amount must be at least ${(1 / scale).toFixed(decimals)} ${currency}` };
  // Both sides are the double nearest the same decimal when the amount has at most `decimals` decimals.
  if (minor / scale !== amount) return { ok: false, message: `${currency} amounts have at most ${decimals} decimals` };
  return { ok: true, minor };
}

export const toMajor = (minor: number, currency: string) => minor / 10 ** (CURRENCY_DECIMALS[currency] ?? 2);

/** `USD 29.00`: the amount with all the currency's decimals, for invoices. */
export const formatMoney = (minor: number, currency: string) =>
  `${currency} ${toMajor(minor, currency).toFixed(CURRENCY_DECIMALS[currency] ?? 2)}`;
