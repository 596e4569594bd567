import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { apiDocument } from '#api/openapi/api-document.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('npm run openapi (scripts/write-openapi.ts)', () => {
  it('writes the served document, with the servers given on the command line', { timeout: 60_000 }, async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    const out = join(dir, 'api.json');
    try {
      // Act
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', 'scripts/write-openapi.ts', '--out', out, '--server', 'https://api.example.com'],
        { cwd: ROOT },
      );
      // Assess
      expect(stdout).toContain(`Wrote ${out}: OpenAPI 3.1.0`);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(
        JSON.parse(JSON.stringify(apiDocument({ servers: [{ url: 'https://api.example.com' }] }))),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
