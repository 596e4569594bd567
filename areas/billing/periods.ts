/** Adds a billing period (1 monthly, 2 yearly) to an ISO instant. */
export function addPeriod(fromIso: string, billingPeriod: number): string {
  const d = new Date(fromIso);
  if (billingPeriod === 2) d.setUTCFullYear(d.getUTCFullYear() + 1);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return d.toISOString();
}

export const addDays = (fromIso: string, days: number) =>
  new Date(Date.parse(fromIso) + days * 86_400_000).toISOString();
