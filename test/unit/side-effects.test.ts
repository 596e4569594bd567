import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { esbuildOptionsFor } from '#lib/bundling.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { sideEffects: string[] };

/** Deployed code: what a function's bundle can contain. */
const deployed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => /^(shared|areas|api|functions)\//.test(f));

/** Statements that run something at import, beyond declaring (a call, an await, a loop). */
function importTimeStatements(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  return source.statements
    .filter((s) => ts.isExpressionStatement(s) || ts.isIfStatement(s) || ts.isForOfStatement(s) || ts.isForStatement(s))
    .map((s) => `${file}: ${s.getText(source).split('\n')[0]}`);
}

/**
 * package.json declares the project's modules free of side effects but the ones it lists, so esbuild
 * leaves out of a bundle a module none of whose exports the function uses, even when an exposed module
 * (`for-<area>.ts`) re-exports it beside what the function does use.
 */
describe('side effects at import', () => {
  it('only the modules package.json lists run code at import', () => {
    const listed = new Set(pkg.sideEffects.map((p) => p.replace(/^\.\//, '')));
    const unlisted = deployed.filter((f) => !listed.has(f)).flatMap(importTimeStatements);
    expect(unlisted).toEqual([]);
    for (const file of listed) expect(importTimeStatements(file), file).not.toEqual([]);
  });

  it.each(['tools', 'agents'])(
    'the %s function bundles no tool executor, though an exposed module re-exports runTool',
    async (name) => {
      const { metafile } = await build({
        ...esbuildOptionsFor(join(ROOT, 'functions', name, 'index.ts')),
        write: false,
        outdir: join(ROOT, 'bench', 'out', 'side-effects'),
        metafile: true,
        logLevel: 'error',
      });
      const inputs = Object.values(metafile.outputs).flatMap((o) =>
        Object.entries(o.inputs)
          .filter(([, v]) => v.bytesInOutput > 0)
          .map(([input]) => input),
      );
      expect(inputs.filter((i) => i.startsWith('areas/tools/built-in/'))).toEqual([]);
      expect(inputs.some((i) => i.startsWith('areas/tools/'))).toBe(true);
    },
    60_000,
  );
});
