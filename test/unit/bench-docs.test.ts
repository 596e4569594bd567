import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_FILES, docSections, fillSections } from '#bench/docs.ts';
import type { Results } from '#bench/report.ts';

const root = join(import.meta.dirname, '..', '..');
const results = JSON.parse(readFileSync(join(root, 'bench', 'results.json'), 'utf8')) as Results;

describe('generated benchmark figures in the docs', () => {
  it.each(DOC_FILES)('%s holds exactly what npm run bench:docs writes from bench/results.json', (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    expect(text).toContain('<!-- bench:');
    expect(fillSections(text, docSections(results))).toBe(text);
  });

  it('keeps the figures out of README.md, which links to docs/bench.md', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).not.toContain('<!-- bench:');
    expect(readme).toContain('docs/bench.md');
  });

  it('rewrites only the marked sections and refuses unknown ones', () => {
    const text = 'before\n<!-- bench:summary:begin -->\nold 1.23\n<!-- bench:summary:end -->\nafter';
    expect(fillSections(text, { summary: 'new' })).toBe(
      'before\n<!-- bench:summary:begin (generated from bench/results.json by npm run bench:docs; do not edit) -->\nnew\n<!-- bench:summary:end -->\nafter',
    );
    expect(() => fillSections(text, {})).toThrow('summary');
  });
});
