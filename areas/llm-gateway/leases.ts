import { keyId } from '#shared/data/keys.ts';
import { logger } from '#shared/runtime/logger.ts';
import { RECORD_LANDS_WITHIN_MS } from './messages.ts';
import { gatewayKeys } from './records.ts';
import { holdLease, RESERVATION_TTL_MS, settleLease, usedField, type Hold } from './reservations.ts';

/**
 * The tenant's month allowance and a key's budget, admitted from leases (docs/decisions/
 * llm-gateway.md, "Leases"). An instance leases a slice of a limit's headroom with one conditional
 * write (reservations.ts) and admits calls from it in memory: each call takes its worst case from the
 * slice and gives back what it did not use. What is leased has left the headroom before any call
 * uses it, so instances together cannot pass a limit. A lease admits calls for `LEASE_USE_MS`; then,
 * or once a fresh one replaces it, it is retired and settled to its use with one write after its last
 * call. Its expiry runs past the longest call it may admit, so the sweep settles a lease its instance
 * abandoned to the use its calls recorded (each call's record adds to its lease's usage item).
 * Slices start at one call's worst case and double, within shares of the limit and of the headroom
 * their write leaves, so near a limit each call leases only itself, as a per-call hold did.
 */
const LEASE_USE_MS = 30_000;
/**
 * From a lease's writing to its expiry, when the sweep may settle it: past its last call's end and
 * past the latest its calls' queued records land.
 */
export const LEASE_LIFE_MS = LEASE_USE_MS + RESERVATION_TTL_MS + RECORD_LANDS_WITHIN_MS;
/** A slice takes at most this share of what the limit has left after it. */
const HEADROOM_SHARE = 4;
/** A slice takes at most this share of a limit, however much is left. */
const LIMIT_SHARE = 8;
/** A slice covers at most this many worst cases of the call that leases it. */
const MAX_LEASE_CALLS = 64;
/** Items with a lease in this instance; beyond it, the leases are retired and the slots forgotten. */
const MAX_SLOTS = 1000;

interface Lease {
  id: string;
  tenantId: string;
  /** The item, the amount leased and the limit it was leased under: a changed limit retires it. */
  hold: Hold;
  expiresAt: number;
  useBy: number;
  /** What calls may still take (unlimited when `hold.limit` is null). */
  room: number;
  /** What its settled calls used. */
  used: number;
  inFlight: number;
  retired: boolean;
  lastUsedAt: string | null;
}

/** One limited item's leasing in this instance. */
interface Slot {
  current: Lease | null;
  /** The next slice's amount (0: the worst case of the call that leases it). */
  nextAmount: number;
  /** A lease being written: calls lacking room wait for it rather than lease one each. */
  topUp: Promise<unknown> | null;
}

const slots = new Map<string, Slot>();
/** Retired leases whose last call has finished: settled with the next call's writes. */
const toSettle = new Set<Lease>();

export interface LeaseTicket {
  lease: Lease;
  worst: number;
}

function slotOf(hold: Omit<Hold, 'amount'>): Slot {
  const id = keyId(hold.key);
  let slot = slots.get(id);
  if (slot) return slot;
  if (slots.size >= MAX_SLOTS) {
    for (const s of slots.values()) if (s.current) retire(s, s.current);
    slots.clear();
  }
  slot = { current: null, nextAmount: 0, topUp: null };
  slots.set(id, slot);
  return slot;
}

/** No more calls from this lease; settled once its last call has finished. */
function retire(slot: Slot, lease: Lease) {
  lease.retired = true;
  if (slot.current === lease) slot.current = null;
  if (lease.inFlight === 0) toSettle.add(lease);
}

const settleOne = (lease: Lease) =>
  settleLease(
    lease.hold.key,
    lease.hold.unit,
    lease.id,
    lease.hold.amount,
    lease.used,
    lease.hold.unit === 'Nano' && lease.lastUsedAt ? { lastUsedAt: lease.lastUsedAt } : {},
  );

/**
 * Settles the retired leases whose calls have all finished. One that fails stays for the next
 * call's writes (a settle is conditional on its lease, so a retry counts once) or the sweep.
 */
export async function settleRetired() {
  const due = [...toSettle];
  toSettle.clear();
  await Promise.all(
    due.map((lease) =>
      settleOne(lease).catch((error) => {
        toSettle.add(lease);
        logger.warn('lease not settled; kept for the next call or the sweep', { error: error as Error });
      }),
    ),
  );
}

/** The next slice: twice this one, within the shares of the limit and of what is left after it. */
function nextAmount(h: Hold, worst: number, committed: number) {
  if (h.limit === null) return 0;
  return Math.floor(
    Math.min(h.amount * 2, worst * MAX_LEASE_CALLS, h.limit / LIMIT_SHARE, (h.limit - committed) / HEADROOM_SHARE),
  );
}

/**
 * Leases a fresh slice for a call lacking room: `nextAmount`, or exactly the call's worst case when
 * the limit has no room for that. False when not even that fits.
 */
async function leaseAfresh(
  tenantId: string,
  slot: Slot,
  spec: Omit<Hold, 'amount'>,
  worst: number,
  now: number,
): Promise<boolean> {
  const sizes = spec.limit === null ? [0] : slot.nextAmount > worst ? [slot.nextAmount, worst] : [worst];
  for (const amount of sizes) {
    const id = crypto.randomUUID();
    const useBy = now + LEASE_USE_MS;
    const expiresAt = now + LEASE_LIFE_MS;
    const hold = { ...spec, amount };
    const out = await holdLease(hold, id, expiresAt, gatewayKeys.leaseUse(tenantId, id));
    if (!out.held) continue;
    if (slot.current) retire(slot, slot.current);
    slot.current = {
      id,
      tenantId,
      hold,
      expiresAt,
      useBy,
      room: amount,
      used: 0,
      inFlight: 0,
      retired: false,
      lastUsedAt: null,
    };
    slot.nextAmount = nextAmount(hold, worst, out.committed);
    return true;
  }
  slot.nextAmount = 0;
  return false;
}

/**
 * Admits a call's worst case against a limit from this instance's lease on it (leasing afresh when
 * it lacks room); null when the limit has no room for it. A lease taken under another limit, or
 * past its use, is settled first (when no call of it is running), so the call is judged on what is
 * really used.
 */
export async function admitLeased(
  tenantId: string,
  spec: Omit<Hold, 'amount'>,
  worst: number,
  now = Date.now(),
): Promise<LeaseTicket | null> {
  if (spec.limit !== null && worst > spec.limit) return null;
  const slot = slotOf(spec);
  for (;;) {
    const lease = slot.current;
    // Its room goes back before a fresh lease is written, so the call may use it again.
    if (lease && (lease.hold.limit !== spec.limit || lease.useBy <= now)) {
      retire(slot, lease);
      await settleRetired();
      continue;
    }
    if (lease && (spec.limit === null || lease.room >= worst)) {
      lease.room -= worst;
      lease.inFlight++;
      return { lease, worst };
    }
    if (slot.topUp) {
      await slot.topUp.catch(() => undefined);
      continue;
    }
    const mine = leaseAfresh(tenantId, slot, spec, worst, now);
    slot.topUp = mine;
    try {
      if (!(await mine)) return null;
    } finally {
      if (slot.topUp === mine) slot.topUp = null;
    }
  }
}

function done(t: LeaseTicket, back: number) {
  const { lease } = t;
  lease.inFlight--;
  if (!lease.retired) lease.room += back;
  else if (lease.inFlight === 0) toSettle.add(lease);
}

/**
 * The call's use goes into its lease (the rest of its worst case back to the room). Returns what
 * the call's record adds to the lease's usage item, for the sweep.
 */
export function settleLeased(t: LeaseTicket, used: number, at: string) {
  t.lease.used += used;
  if (!t.lease.lastUsedAt || at > t.lease.lastUsedAt) t.lease.lastUsedAt = at;
  done(t, t.worst - used);
  return {
    tenantId: t.lease.tenantId,
    id: t.lease.id,
    field: usedField(t.lease.hold.unit),
    used,
    expiresAt: t.lease.expiresAt,
  };
}

/** Takes an admission back entirely (refused by another limit, or redone on fresher limits). */
export const undoLeased = (t: LeaseTicket | null) => t && done(t, t.worst);

export type LeaseUse = ReturnType<typeof settleLeased>;
