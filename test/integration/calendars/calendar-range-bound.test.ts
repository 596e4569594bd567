import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { newTenant } from '#test/support/fixtures.ts';
import { caller } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { CALENDARS, newCalendar, scheduleCall, scheduleTool } from '#test/support/calendars.ts';

/**
 * The widest day range, asked on both paths (the staff route and the tool a widget visitor's turn
 * runs), is refused before any list of days is built. Each day listed costs a Date formatted to
 * ISO, so counting those calls shows that 3.6 million days were never walked.
 */
let tenant: string;
let owner: string;

beforeAll(async () => {
  tenant = await newTenant({ planType: 2, maxAgents: 5 });
  owner = await tokenFor({ tenantId: tenant });
});

afterEach(() => vi.restoreAllMocks());

const countIsoDates = () => vi.spyOn(Date.prototype, 'toISOString');

describe('a calendar day range is bounded before any work', () => {
  it('answers 400 on the slots route for 0001-01-01..9999-12-31 without walking the days', async () => {
    const c = await newCalendar(owner);
    const iso = countIsoDates();
    const res = await caller(CALENDARS, owner).get(`/${c.id}/slots?from=0001-01-01&to=9999-12-31`);
    expect(res).toAnswer(400, 'VALIDATION_ERROR');
    expect(iso.mock.calls.length).toBeLessThan(1000);
    expect(res.text).toContain('At most 31 days');
  });

  it('answers a tool error to find_slots for the same range without walking the days', async () => {
    const c = await newCalendar(owner);
    const iso = countIsoDates();
    const r = await scheduleCall(scheduleTool(c.id), tenant, {
      action: 'find_slots',
      from: '0001-01-01',
      to: '9999-12-31',
    });
    expect(iso.mock.calls.length).toBeLessThan(1000);
    expect(r).toMatchObject({ ok: false, error: expect.stringContaining('At most 31 days') });
  });

  it('answers a tool error, not a failure, to a day that does not exist', async () => {
    const c = await newCalendar(owner);
    for (const from of ['2027-13-45', '2027-02-30'])
      expect(await scheduleCall(scheduleTool(c.id), tenant, { action: 'find_slots', from })).toMatchObject({
        ok: false,
        error: expect.stringContaining('calendar date'),
      });
  });
});
