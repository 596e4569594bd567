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

/** A project file a specifier names, as a repository path ('' for a package). */
const resolve = (file: string, spec: string) => {
  const path = spec.startsWith('#') ? spec.slice(1) : spec.startsWith('.') ? normalize(join(dirname(file), spec)) : '';
  return path.endsWith('.ts') ? path : '';
};

/** Every import of the project's own files, as repository paths (type-only imports count too). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(SPECIFIER)].map(([, spec]) => resolve(file, spec!)).filter(Boolean);
}

/**
 * The imports that run: not `import type`, not `export type`, not `import { type A, type B }` (they
 * vanish from the bundle, so they order nothing at run time).
 */
const STATEMENT =
  /^\s*(import|export)\s+(type\s+)?(\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+(?:\s*,\s*\{[^}]*\})?)?\s*(?:from\s*)?['"]([^'"\n]+)['"]/gm;
function runtimeImportsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found: string[] = [];
  for (const [, , typeOnly, names, spec] of text.matchAll(STATEMENT)) {
    if (typeOnly) continue;
    const list = names?.startsWith('{')
      ? names
          .slice(1, -1)
          .split(',')
          .map((n) => n.trim())
          .filter(Boolean)
      : null;
    if (list?.length && list.every((n) => n.startsWith('type '))) continue;
    const path = resolve(file, spec!);
    if (path) found.push(path);
  }
  for (const [, spec] of text.matchAll(/\bimport\s*\(\s*['"]([^'"\n]+)['"]/g)) {
    const path = resolve(file, spec!);
    if (path) found.push(path);
  }
  return found;
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

/**
 * The areas' ranks, lowest first (docs/architecture.md, "The areas' ranks"): an area imports only
 * from a lower rank, so the areas form a graph with no cycle. Areas of one rank know nothing of
 * each other. What a lower area must tell a higher one is an event (shared/data/events.ts); what it
 * must ask of one is a port the entry point fills.
 */
const RANKS: readonly (readonly string[])[] = [
  ['system', 'admin'],
  ['vault'],
  ['identity'],
  ['billing'],
  ['analytics'],
  ['content', 'catalog', 'bcm', 'calendars', 'outbound-webhooks'],
  ['llm-gateway'],
  ['knowledge'],
  ['prompts'],
  ['channels'],
  ['tools'],
  ['agents'],
  ['conversations'],
  ['connector'],
];
const rankOf = (area: string) => RANKS.findIndex((r) => r.includes(area));

describe('the areas form a ranked graph with no cycle', () => {
  const areas = [...new Set(sources.map(areaOf).filter((a): a is string => !!a))].sort();

  it('every area has a rank', () => {
    expect(areas.filter((a) => rankOf(a) < 0)).toEqual([]);
  });

  it('an area imports only what a lower area exposes (type-only imports aside)', () => {
    const upward = sources
      .filter((f) => areaOf(f))
      .flatMap((from) => runtimeImportsOf(from).map((to) => ({ from, to })))
      .filter((e) => areaOf(e.to) && areaOf(e.to) !== areaOf(e.from))
      .filter((e) => rankOf(areaOf(e.to)!) >= rankOf(areaOf(e.from)!))
      .map((e) => `${e.from} -> ${e.to}`);
    expect(upward).toEqual([]);
  });

  it('no module cycle: the files of shared/, areas/ and api/ import each other in no circle (type-only imports aside)', () => {
    const graph = new Map(
      sources.filter((f) => /^(shared|areas|api)\//.test(f)).map((f) => [f, runtimeImportsOf(f)] as const),
    );
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      stack.push(file);
      for (const next of graph.get(file) ?? []) {
        if (!graph.has(next)) continue;
        if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' -> '));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });
});

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
