import { addDays, daysBetween, instantOf, minuteOfDay, wallTime } from './zone-time.ts';

export interface OpeningHours {
  /** ISO weekday, 1 Monday to 7 Sunday. */
  day: number;
  start: string;
  end: string;
}

export interface SlotRules {
  timeZone: string;
  weeklyHours: OpeningHours[];
  slotMinutes: number;
  bufferMinutes: number;
  horizonDays: number;
}

export interface Busy {
  start: string;
  end: string;
}

export interface Slot {
  start: string;
  end: string;
}

/** At most this many days per question, so an answer stays bounded (31 days of 10-minute slots). */
export const MAX_RANGE_DAYS = 31;

/**
 * Free slots of the local days `from`..`to` in the calendar's zone: each opening range cut into
 * slots of `slotMinutes` with `bufferMinutes` between them, counted in wall-clock time from the
 * range's start, so a slot at 09:00 stays at 09:00 on both sides of a daylight-saving change. A
 * slot must start after `now` and within the horizon, and keep the buffer clear of every busy span.
 */
export function freeSlots(rules: SlotRules, from: string, to: string, busy: Busy[], now: number): Slot[] {
  const horizon = now + rules.horizonDays * 86_400_000;
  const gap = rules.bufferMinutes * 60_000;
  const spans = busy.map((b) => [Date.parse(b.start), Date.parse(b.end)] as const);
  const out: Slot[] = [];
  for (const date of daysBetween(from, to, MAX_RANGE_DAYS)) {
    const weekday = (new Date(`${date}T00:00:00Z`).getUTCDay() || 7) as number;
    const ranges = rules.weeklyHours.filter((h) => h.day === weekday).sort((a, b) => a.start.localeCompare(b.start));
    for (const range of ranges) {
      const last = minuteOfDay(range.end);
      for (
        let m = minuteOfDay(range.start);
        m + rules.slotMinutes <= last;
        m += rules.slotMinutes + rules.bufferMinutes
      ) {
        const start = instantOf(rules.timeZone, date, m);
        if (start === null) continue;
        const end = start + rules.slotMinutes * 60_000;
        if (start <= now || start > horizon) continue;
        if (spans.some(([s, e]) => start < e + gap && s < end + gap)) continue;
        out.push({ start: new Date(start).toISOString(), end: new Date(end).toISOString() });
      }
    }
  }
  return out;
}

/** Today in the calendar's zone, and the last day its horizon reaches. */
export function localWindow(rules: Pick<SlotRules, 'timeZone' | 'horizonDays'>, now: number) {
  const today = wallTime(rules.timeZone, now).date;
  return { today, lastDay: addDays(today, rules.horizonDays) };
}
