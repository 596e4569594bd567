import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SPECIFIER = /\b(?:from\s*|import\s*\(\s*|import\s+)['"]([^'"\n]+)['"]/g;

const sources = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean);

/** Every import of the project's own files, as repository paths (type-only imports count too). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(SPECIFIER)].flatMap(([, spec]) => {
    const path = spec!.startsWith('#')
      ? spec!.slice(1)
      : spec!.startsWith('.')
        ? normalize(join(dirname(file), spec!))
        : '';
    return path.endsWith('.ts') ? [path] : [];
  });
}

const edges = sources.flatMap((from) => importsOf(from).map((to) => ({ from, to })));
const top = (path: string) => path.split('/')[0]!;
const areaOf = (path: string) => (top(path) === 'areas' ? path.split('/')[1]! : null);

/** What each layer may import: plumbing, then domain areas, then what sees every area, then entry points. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  shared: ['shared'],
  areas: ['shared', 'areas'],
  api: ['shared', 'areas', 'api'],
  functions: ['shared', 'areas', 'api', 'functions'],
};

describe('layers run one way', () => {
  it.each(Object.keys(MAY_IMPORT))('%s/ imports only from the layers below it', (layer) => {
    const upward = edges
      .filter((e) => top(e.from) === layer && !MAY_IMPORT[layer]!.includes(top(e.to)))
      .map((e) => `${e.from} -> ${e.to}`);
    expect(upward).toEqual([]);
  });

  it('an area reaches another only through the module that area exposes for it (areas/<other>/for-<area>.ts)', () => {
    const around = edges
      .filter((e) => areaOf(e.from) && areaOf(e.to) && areaOf(e.from) !== areaOf(e.to))
      .filter((e) => e.to !== `areas/${areaOf(e.to)}/for-${areaOf(e.from)}.ts`)
      .map((e) => `${e.from} -> ${e.to}`);
    expect(around).toEqual([]);
  });

  it('an exposed module only re-exports its own area', () => {
    const exposed = sources.filter((f) => /^areas\/[^/]+\/for-[^/]+\.ts$/.test(f));
    expect(exposed.length).toBeGreaterThan(0);
    const offenders = exposed.filter(
      (file) =>
        readFileSync(join(ROOT, file), 'utf8')
          .replace(/\/\*\*[\s\S]*?\*\//g, '')
          .replace(/export (type )?\{[^}]*\} from '\.\/[^']+';/g, '')
          .trim() !== '',
    );
    expect(offenders).toEqual([]);
  });

  it('no two files of one area share a name at two levels', () => {
    const seen = new Map<string, number>();
    const clashes: string[] = [];
    for (const file of sources.filter((f) => areaOf(f))) {
      const parts = file.split('/');
      const key = `${parts[1]}/${parts.at(-1)}`;
      const depth = parts.length;
      if (seen.has(key) && seen.get(key) !== depth) clashes.push(file);
      else seen.set(key, depth);
    }
    expect(clashes).toEqual([]);
  });

  it('functions/ holds entry points only: one index.ts per function', () => {
    expect(sources.filter((f) => top(f) === 'functions' && !/^functions\/[^/]+\/index\.ts$/.test(f))).toEqual([]);
  });
});
