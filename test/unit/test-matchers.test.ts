import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MATCHERS = new Set(['toMatchObject', 'toEqual', 'toStrictEqual', 'toContainEqual', 'toHaveBeenCalledWith']);

/**
 * Regular-expression literals placed as a value (a property or an array element) inside the
 * expected object of an equality matcher. Vitest's toMatchObject lets such a value pass whatever the
 * actual string is; expect.stringMatching(/.../) is the matcher that checks. A regular expression
 * handed to a call inside the object (expect.stringMatching) is not a value and is not reported.
 */
function regexValuesInMatchers(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const inside = (node: ts.Node) => {
    if (ts.isCallExpression(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return;
    if (
      ts.isRegularExpressionLiteral(node) &&
      (ts.isPropertyAssignment(node.parent) || ts.isArrayLiteralExpression(node.parent))
    ) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${file}:${line + 1}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, inside);
  };
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      MATCHERS.has(node.expression.name.text)
    )
      for (const arg of node.arguments) ts.forEachChild(arg, inside);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('assertions that can see', () => {
  it('no equality matcher in the tests holds a regular-expression literal as a value', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'test/**/*.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean);
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((f) => regexValuesInMatchers(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(found).toEqual([]);
  });

  it('finds the pattern it forbids, and leaves expect.stringMatching alone', () => {
    const text = [
      'expect(r).toMatchObject({ ok: false, error: /not allowed/ });',
      'expect(r).toEqual({ list: [/a/], nested: { message: /b/ } });',
      'expect(r).toMatchObject({ error: expect.stringMatching(/fine/) });',
      'expect(r.error).toMatch(/fine/);',
    ].join('\n');
    expect(regexValuesInMatchers('x.ts', text)).toEqual(['x.ts:1: /not allowed/', 'x.ts:2: /a/', 'x.ts:2: /b/']);
  });
});
