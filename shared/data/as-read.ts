/**
 * Optimistic concurrency, one convention: an item read and then rewritten is written on the
 * condition that it is still the item read, so two editors never lose each other's change (the
 * second gets its write's `onConflict`, a 409). The witness is the attribute every write of the
 * record changes: `revision` where the record keeps a counter (users, BCM entries and risks, bumped
 * with `nextRevision`), else `updatedAt`. An item written before its record kept the witness has
 * none, and must still have none. `also` adds the record's own state condition (not deleted, not
 * archived). The value placeholder is `:asRead`, which no builder of `commit.ts` uses.
 */
export function asRead<W extends 'revision' | 'updatedAt'>(
  before: { [K in W]?: unknown },
  witness: W,
  also?: string,
): { condition: string; values: Record<string, unknown> } {
  const seen = before[witness];
  const parts = ['attribute_exists(pk)', ...(also ? [also] : [])];
  if (seen === undefined)
    return { condition: [...parts, `attribute_not_exists(${witness})`].join(' AND '), values: {} };
  return { condition: [...parts, `${witness} = :asRead`].join(' AND '), values: { ':asRead': seen } };
}

/** The revision a rewrite stores: one past the one read (a record read before it kept one is at 0). */
export const nextRevision = (before: { revision?: unknown }) => Number(before.revision ?? 0) + 1;
