import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

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
