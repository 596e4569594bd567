import { randomBytes } from 'node:crypto';

let lastMs = 0;
let sequence = 0;

/**
 * A UUID version 7: 48 bits of Unix milliseconds, then a 12-bit sequence, then random bits. Ids made
 * later sort after earlier ones (within one process even in the same millisecond), so an id used as
 * a sort key is its place in time: a transcript's messages, an owner's actions newest first. `after`
 * puts an id after another one (a later millisecond, so even another instance's ids sort after it).
 */
export function timeOrderedId(now = Date.now(), after?: string): string {
  let ms = Math.max(now, after ? millisecondOf(after) + 1 : 0);
  if (ms < lastMs) ms = lastMs;
  sequence = ms === lastMs ? sequence + 1 : 0;
  if (sequence > 0xfff) {
    ms += 1;
    sequence = 0;
  }
  lastMs = ms;
  const hex = ms.toString(16).padStart(12, '0');
  const rand = randomBytes(8);
  rand[0] = (rand[0]! & 0x3f) | 0x80;
  const tail = rand.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7${sequence.toString(16).padStart(3, '0')}-${tail.slice(0, 4)}-${tail.slice(4)}`;
}

/** The millisecond a version-7 id was made at. */
export const millisecondOf = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
