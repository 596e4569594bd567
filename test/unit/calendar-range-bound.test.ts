import { describe, expect, it } from 'vitest';
import { freeSlots, MAX_RANGE_DAYS } from '#areas/calendars/free-slots.ts';
import { dayCount, daysBetween } from '#areas/calendars/zone-time.ts';

/** A day range is bounded before its list of days is built: the widest one would block the event loop for seconds. */
const rules = {
  timeZone: 'Europe/Berlin',
  weeklyHours: [{ day: 1, start: '09:00', end: '12:00' }],
  slotMinutes: 30,
  bufferMinutes: 0,
  horizonDays: 365,
};

describe('day ranges', () => {
  it('counts the days of any range by arithmetic', () => {
    expect(dayCount('2027-03-01', '2027-03-31')).toBe(31);
    expect(dayCount('0001-01-01', '9999-12-31')).toBe(3_652_059);
  });

  it('refuses a range over its bound instead of listing it', () => {
    expect(daysBetween('2027-03-01', '2027-03-03', MAX_RANGE_DAYS)).toEqual(['2027-03-01', '2027-03-02', '2027-03-03']);
    expect(() => daysBetween('0001-01-01', '9999-12-31', MAX_RANGE_DAYS)).toThrow(RangeError);
    expect(() => daysBetween('2027-03-01', 'not-a-day', MAX_RANGE_DAYS)).toThrow(RangeError);
  });

  it('never computes slots of more days than one question may ask', () => {
    expect(() => freeSlots(rules, '0001-01-01', '9999-12-31', [], 0)).toThrow(RangeError);
  });
});
