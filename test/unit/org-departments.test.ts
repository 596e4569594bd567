import { describe, expect, it } from 'vitest';
import { MAX_DEPARTMENT_DEPTH, checkParentChain, type ParentLookup } from '#areas/identity/department-tree.ts';

/** A tree given as child -> parent, read through a lookup that counts its reads. */
function tree(parents: Record<string, string | null>) {
  let reads = 0;
  const lookup: ParentLookup = async (id) => {
    reads++;
    return id in parents ? { parentId: parents[id]! } : undefined;
  };
  return { lookup, reads: () => reads };
}

describe('checkParentChain', () => {
  // Prepare: a -> b -> c (c is the root), d a separate root.
  const parents = { a: 'b', b: 'c', c: null, d: null };

  it('allows a root placement without reading anything', async () => {
    const t = tree(parents);
    expect(await checkParentChain('a', null, t.lookup)).toEqual({ ok: true, depth: 0 });
    expect(t.reads()).toBe(0);
  });

  it('gives the new depth after walking the chain once', async () => {
    const t = tree(parents);
    expect(await checkParentChain('d', 'a', t.lookup)).toEqual({ ok: true, depth: 3 });
    expect(t.reads()).toBe(3);
  });

  it('finds a cycle through itself or any descendant', async () => {
    expect(await checkParentChain('c', 'c', tree(parents).lookup)).toEqual({ ok: false, reason: 'cycle' });
    expect(await checkParentChain('c', 'a', tree(parents).lookup)).toEqual({ ok: false, reason: 'cycle' });
    expect(await checkParentChain('b', 'a', tree(parents).lookup)).toEqual({ ok: false, reason: 'cycle' });
  });

  it('reports a broken chain (a parent of another tenant reads as missing)', async () => {
    expect(await checkParentChain('d', 'elsewhere', tree(parents).lookup)).toEqual({ ok: false, reason: 'missing' });
    expect(await checkParentChain('d', 'x', tree({ x: 'gone' }).lookup)).toEqual({ ok: false, reason: 'missing' });
  });

  it('stops at the depth cap, also on corrupt data that loops without the department', async () => {
    const chain: Record<string, string | null> = { n0: null };
    for (let i = 1; i <= MAX_DEPARTMENT_DEPTH; i++) chain[`n${i}`] = `n${i - 1}`;
    expect(await checkParentChain('new', `n${MAX_DEPARTMENT_DEPTH - 1}`, tree(chain).lookup)).toEqual({
      ok: true,
      depth: MAX_DEPARTMENT_DEPTH,
    });
    expect(await checkParentChain('new', `n${MAX_DEPARTMENT_DEPTH}`, tree(chain).lookup)).toEqual({
      ok: false,
      reason: 'too-deep',
    });
    const loop = tree({ p: 'q', q: 'p' });
    expect(await checkParentChain('new', 'p', loop.lookup)).toEqual({ ok: false, reason: 'too-deep' });
    expect(loop.reads()).toBe(MAX_DEPARTMENT_DEPTH);
  });
});
