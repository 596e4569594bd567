/**
 * A caller refused for a limit is refused again from memory, for at most a second, without a write:
 * a refused burst would otherwise spend a write unit per call on a failed condition (or on the rpm
 * counter). The memory never admits: a remembered refusal stands only while the fresh standing
 * every call still reads is what it was refused on (a raised limit, a new key budget or a lifted
 * suspension admits at once), and only for a call no smaller than the refused one (a smaller one may
 * fit). Per instance and bounded: forgetting costs a call its conditional writes, nothing more.
 */
export type RefusedBy = 'rpm' | 'tpm' | 'budget' | 'allowance';

interface Remembered {
  /** The standing the refusal was made on (admission's basis). */
  basis: string;
  until: number;
  worstTokens: number;
  refusedBy: RefusedBy;
  error: unknown;
}

export const REFUSAL_MEMORY_MS = 1000;
const MAX_REMEMBERED = 1000;
const remembered = new Map<string, Remembered>();

export function rememberRefusal(id: string, r: Remembered) {
  if (remembered.size >= MAX_REMEMBERED && !remembered.has(id)) remembered.clear();
  remembered.set(id, r);
}

/** The refusal a call of this size would get again, if one is remembered and has not lapsed. */
export function recallRefusal(id: string, worstTokens: number, now: number): Remembered | undefined {
  const r = remembered.get(id);
  if (!r) return undefined;
  if (r.until <= now) {
    remembered.delete(id);
    return undefined;
  }
  return r.refusedBy === 'rpm' || worstTokens >= r.worstTokens ? r : undefined;
}

export const forgetRefusal = (id: string) => remembered.delete(id);

/** The limit that refused a call, as the refusal carries it. */
export const refusedByOf = (err: unknown) => (err as { refusedBy?: RefusedBy }).refusedBy;
export const refusedBy = <E extends object>(err: E, by: RefusedBy) => Object.assign(err, { refusedBy: by });
