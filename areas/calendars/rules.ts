import type { OpeningHours } from './free-slots.ts';

/** The bounds of a calendar's settings: what keeps one slot question's work and answer bounded. */
export const CALENDAR_LIMITS = {
  slotMinutes: { min: 10, max: 480 },
  bufferMinutes: { min: 0, max: 240 },
  horizonDays: { min: 1, max: 365 },
  weeklyHours: 28,
  calendarsPerTenant: 20,
} as const;

export const HHMM = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;

/** Ranges of one day must not overlap, or one slot would be offered twice. */
export function overlappingDay(hours: readonly OpeningHours[]): number | null {
  for (let day = 1; day <= 7; day++) {
    const ranges = hours.filter((h) => h.day === day).sort((a, b) => a.start.localeCompare(b.start));
    for (let i = 1; i < ranges.length; i++) if (ranges[i]!.start < ranges[i - 1]!.end) return day;
  }
  return null;
}
