/** Analytics ranges: whole UTC days, both ends included. */
export const MAX_RANGE_DAYS = 366;
export const DEFAULT_RANGE_DAYS = 30;
const DAY_MS = 86_400_000;

const dayNumber = (day: string) => Date.parse(`${day}T00:00:00.000Z`) / DAY_MS;
const dayString = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);
const isDay = (day: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(day) && Number.isInteger(dayNumber(day)) && dayString(dayNumber(day)) === day;

export type Range = { ok: true; startDate: string; endDate: string } | { ok: false; path: string; message: string };

/**
 * The range a query names. Missing ends default to the 30 days ending today (or ending at the
 * given end, or starting at the given start).
 */
export function resolveRange(q: { startDate?: string; endDate?: string }, today: string): Range {
  // Callers reach this from schema refinements that may run on input the field checks refused.
  for (const path of ['startDate', 'endDate'] as const) {
    const day = q[path];
    if (day !== undefined && !isDay(day)) return { ok: false, path, message: 'Expected a calendar date YYYY-MM-DD' };
  }
  const end = q.endDate ?? (q.startDate ? dayString(dayNumber(q.startDate) + DEFAULT_RANGE_DAYS - 1) : today);
  const start = q.startDate ?? dayString(dayNumber(end) - DEFAULT_RANGE_DAYS + 1);
  const days = dayNumber(end) - dayNumber(start) + 1;
  if (days < 1) return { ok: false, path: 'endDate', message: 'endDate must not be before startDate' };
  if (days > MAX_RANGE_DAYS)
    return { ok: false, path: 'endDate', message: `The range may span at most ${MAX_RANGE_DAYS} days` };
  return { ok: true, startDate: start, endDate: end };
}
