/**
 * Wall-clock time in an IANA zone, with Intl alone: no zone database of our own, so the rules are
 * those of the runtime's ICU, the same ones a calendar client uses.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string) {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The zones a calendar may name: the runtime's canonical IANA names, and UTC (which the list leaves out). */
export const TIME_ZONES = [...new Set(['UTC', ...Intl.supportedValuesOf('timeZone')])] as [string, ...string[]];

export function isTimeZone(name: string): boolean {
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

export interface WallTime {
  /** YYYY-MM-DD */
  date: string;
  /** HH:MM */
  time: string;
  /** ISO weekday, 1 Monday to 7 Sunday. */
  weekday: number;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The zone's wall clock at an instant, as milliseconds of a UTC date with the same fields. */
function wallMs(timeZone: string, utcMs: number): number {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(utcMs)
      .map((p) => [p.type, p.value]),
  );
  return Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
}

/** Minutes the zone is ahead of UTC at an instant. */
export const offsetMinutes = (timeZone: string, utcMs: number) =>
  Math.round((wallMs(timeZone, Math.floor(utcMs / 1000) * 1000) - Math.floor(utcMs / 1000) * 1000) / 60_000);

export function wallTime(timeZone: string, utcMs: number): WallTime {
  const d = new Date(wallMs(timeZone, utcMs));
  return {
    date: d.toISOString().slice(0, 10),
    time: `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`,
    weekday: d.getUTCDay() || 7,
  };
}

/**
 * The instant a wall-clock minute of a local day names, or null when the clocks skip it (the
 * spring-forward gap). In the autumn overlap it names two instants; the earlier is taken.
 */
export function instantOf(timeZone: string, date: string, minuteOfDay: number): number | null {
  const local = Date.parse(`${date}T00:00:00.000Z`) + minuteOfDay * 60_000;
  const DAY = 86_400_000;
  // The offsets a day either side cover both sides of any transition near this minute.
  const candidates = [offsetMinutes(timeZone, local - DAY), offsetMinutes(timeZone, local + DAY)]
    .map((off) => local - off * 60_000)
    .filter((t) => wallMs(timeZone, t) === local)
    .sort((a, b) => a - b);
  return candidates[0] ?? null;
}

/** How many days from one YYYY-MM-DD to another, both included: arithmetic, so any range costs the same. */
export const dayCount = (from: string, to: string) =>
  (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;

/**
 * Days from one YYYY-MM-DD to another, both included. The bound is checked before the list is
 * built: 0001-01-01..9999-12-31 is 3.6 million days, seconds of a blocked event loop.
 */
export function daysBetween(from: string, to: string, max: number): string[] {
  const count = dayCount(from, to);
  if (!(count <= max)) throw new RangeError(`${from}..${to} is more than ${max} days`);
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

export const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

export const minuteOfDay = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
