import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { outsideIdKeyPart } from '#shared/data/keys.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Where key shapes may be written: the shared primitives, each area's records module, and the stand-ins and tests. */
const ALLOWED = [/^shared\/data\//, /(^|\/)records\.ts$/, /^local\//, /^test\//];
/** A key attribute written as an object key with a value (not a parameter's type). */
const KEY_LITERAL = /\b(pk|sk|gsi1pk|gsi1sk|gsi2pk|gsi2sk)\s*:(?!\s*(string|number|unknown)\b)/;

it("builds DynamoDB keys only in shared/data/keys.ts and the areas' records modules", () => {
  const files = execFileSync('git', ['ls-files', '*.ts'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  const offenders: string[] = [];
  for (const file of files.filter((f) => !ALLOWED.some((rx) => rx.test(f)))) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (KEY_LITERAL.test(line) && !line.trimStart().startsWith('*') && !line.trimStart().startsWith('//'))
        offenders.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  expect(offenders).toEqual([]);
});

it('puts an outside id into a key as it is when short and plain, else as its SHA-256 (bounded, stable, never a plain id)', () => {
  for (const id of [
    'Ev0PV52K25',
    'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
    '29:1XJK-NJ_w',
    '-1001234',
  ])
    expect(outsideIdKeyPart(id)).toBe(id);
  const digest = /^sha256~[0-9a-f]{64}$/;
  for (const id of ['7'.repeat(201), '🙂'.repeat(1100), 'a b', 'x#EVENT#y', '', 'sha256~abc'])
    expect(outsideIdKeyPart(id)).toEqual(expect.stringMatching(digest));
  expect(outsideIdKeyPart('🙂'.repeat(1100))).toBe(outsideIdKeyPart('🙂'.repeat(1100)));
  expect(outsideIdKeyPart('🙂'.repeat(1100))).not.toBe(outsideIdKeyPart('🙂'.repeat(1101)));
  expect(outsideIdKeyPart('7'.repeat(200))).toBe('7'.repeat(200));
});
