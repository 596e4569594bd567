import { describe, expect, it } from 'vitest';
import { freeSlots, type SlotRules } from '#areas/calendars/free-slots.ts';
import { instantOf, isTimeZone, offsetMinutes, wallTime } from '#areas/calendars/zone-time.ts';

/**
 * Free slots in the calendar's zone (Intl only). Europe/Berlin moves to summer time on Sunday
 * 2027-03-28 (02:00 becomes 03:00) and back on 2027-10-31 (03:00 becomes 02:00).
 */
const NOW = Date.parse('2027-03-20T00:00:00.000Z');
const weekdays = (start: string, end: string) => [1, 2, 3, 4, 5].map((day) => ({ day, start, end }));
const rules = (over: Partial<SlotRules> = {}): SlotRules => ({
  timeZone: 'Europe/Berlin',
  weeklyHours: weekdays('09:00', '12:00'),
  slotMinutes: 30,
  bufferMinutes: 15,
  horizonDays: 60,
  ...over,
});
const starts = (r: SlotRules, from: string, to: string, now = NOW) =>
  freeSlots(r, from, to, [], now).map((s) => s.start);

describe('free slots', () => {
  it('cuts opening hours into slots with the buffer between them', () => {
    expect(freeSlots(rules(), '2027-03-26', '2027-03-26', [], NOW)).toEqual([
      { start: '2027-03-26T08:00:00.000Z', end: '2027-03-26T08:30:00.000Z' },
      { start: '2027-03-26T08:45:00.000Z', end: '2027-03-26T09:15:00.000Z' },
      { start: '2027-03-26T09:30:00.000Z', end: '2027-03-26T10:00:00.000Z' },
      { start: '2027-03-26T10:15:00.000Z', end: '2027-03-26T10:45:00.000Z' },
    ]);
  });

  it('keeps 09:00 local on both sides of the change to summer time (the UTC instant moves an hour)', () => {
    const all = starts(rules(), '2027-03-26', '2027-03-29');
    // Friday in winter time (UTC+1), no hours on the weekend, Monday in summer time (UTC+2).
    expect(all.filter((s) => s.endsWith('T08:00:00.000Z') || s.endsWith('T07:00:00.000Z'))).toEqual([
      '2027-03-26T08:00:00.000Z',
      '2027-03-29T07:00:00.000Z',
    ]);
    expect(all.map((s) => wallTime('Europe/Berlin', Date.parse(s)).time)).toEqual([
      ...['09:00', '09:45', '10:30', '11:15'],
      ...['09:00', '09:45', '10:30', '11:15'],
    ]);
  });

  it('skips the hour the clocks jump over, and takes the first of the hour they repeat', () => {
    const night = (day: number) =>
      rules({ weeklyHours: [{ day, start: '00:00', end: '04:00' }], slotMinutes: 60, bufferMinutes: 0 });
    expect(starts(night(7), '2027-03-28', '2027-03-28')).toEqual([
      '2027-03-27T23:00:00.000Z',
      '2027-03-28T00:00:00.000Z',
      // 02:00 does not exist that night.
      '2027-03-28T01:00:00.000Z',
    ]);
    const autumn = starts(night(7), '2027-10-31', '2027-10-31', Date.parse('2027-10-01T00:00:00Z'));
    expect(autumn).toEqual([
      '2027-10-30T22:00:00.000Z',
      '2027-10-30T23:00:00.000Z',
      // 02:00 summer time, the first of the two.
      '2027-10-31T00:00:00.000Z',
      '2027-10-31T02:00:00.000Z',
    ]);
  });

  it("follows another zone's own date of change (New York, 2027-03-14)", () => {
    const ny = rules({
      timeZone: 'America/New_York',
      weeklyHours: [
        { day: 5, start: '09:00', end: '09:30' },
        { day: 1, start: '09:00', end: '09:30' },
      ],
    });
    expect(starts(ny, '2027-03-12', '2027-03-15', Date.parse('2027-03-01T00:00:00Z'))).toEqual([
      '2027-03-12T14:00:00.000Z',
      '2027-03-15T13:00:00.000Z',
    ]);
  });

  it('leaves out slots that overlap a booking or its buffer, past slots and slots beyond the horizon', () => {
    const busy = [{ start: '2027-03-26T08:45:00.000Z', end: '2027-03-26T09:15:00.000Z' }];
    expect(freeSlots(rules(), '2027-03-26', '2027-03-26', busy, NOW).map((s) => s.start)).toEqual([
      '2027-03-26T08:00:00.000Z',
      '2027-03-26T09:30:00.000Z',
      '2027-03-26T10:15:00.000Z',
    ]);
    // A booking off the grid (made before the settings changed) blocks what it touches, buffer included.
    const offGrid = [{ start: '2027-03-26T08:35:00.000Z', end: '2027-03-26T08:40:00.000Z' }];
    expect(freeSlots(rules(), '2027-03-26', '2027-03-26', offGrid, NOW).map((s) => s.start)).toEqual([
      '2027-03-26T09:30:00.000Z',
      '2027-03-26T10:15:00.000Z',
    ]);
    const at = Date.parse('2027-03-26T08:50:00.000Z');
    expect(starts(rules(), '2027-03-26', '2027-03-26', at)).toEqual([
      '2027-03-26T09:30:00.000Z',
      '2027-03-26T10:15:00.000Z',
    ]);
    expect(starts(rules({ horizonDays: 1 }), '2027-03-22', '2027-03-26')).toEqual([]);
    expect(starts(rules({ horizonDays: 3 }), '2027-03-22', '2027-03-26')).toHaveLength(4);
  });
});

describe('zone time', () => {
  it('knows IANA zones and refuses other names', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('+02:00 or so')).toBe(false);
  });

  it('answers the offset and the wall clock either side of a change', () => {
    expect(offsetMinutes('Europe/Berlin', Date.parse('2027-03-28T00:59:00Z'))).toBe(60);
    expect(offsetMinutes('Europe/Berlin', Date.parse('2027-03-28T01:00:00Z'))).toBe(120);
    expect(wallTime('Europe/Berlin', Date.parse('2027-03-28T01:00:00Z'))).toEqual({
      date: '2027-03-28',
      time: '03:00',
      weekday: 7,
    });
    expect(instantOf('Europe/Berlin', '2027-03-28', 150)).toBeNull();
    expect(instantOf('Asia/Kolkata', '2027-03-28', 9 * 60)).toBe(Date.parse('2027-03-28T03:30:00Z'));
  });
});
