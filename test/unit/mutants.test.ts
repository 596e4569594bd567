import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mutants } from '#test/mutation/mutants.ts';

/** `npm run mutate` plants each bug by its text: a change to the code must not leave a mutant behind. */
describe('the planted bugs of npm run mutate', () => {
  it.each(mutants)('$id: its text occurs once in $file and its tests exist', (m) => {
    const source = readFileSync(m.file, 'utf8');
    expect(source.split(m.find).length - 1).toBe(1);
    expect(m.tests.filter((t) => !existsSync(t))).toEqual([]);
    expect(m.replace).not.toBe(m.find);
  });

  it('gives each mutant its own id', () => {
    expect(new Set(mutants.map((m) => m.id)).size).toBe(mutants.length);
  });
});
