import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { othersCanReach } from '#test/support/postgres-binaries.ts';
import { tempDir } from '#test/support/temp-dir.ts';

// Whether the embedded PostgreSQL's binaries must be copied before the postgres user can run them.
describe('othersCanReach', () => {
  it('is false under a folder only its owner can enter, true once every folder lets others through', () => {
    const parent = tempDir('reach-');
    const bin = join(parent, 'repo', 'bin');
    mkdirSync(bin, { recursive: true });
    chmodSync(parent, 0o700);
    expect(othersCanReach(bin)).toBe(false);
    chmodSync(parent, 0o755);
    expect(othersCanReach(bin)).toBe(othersCanReach(join(parent, '..')));
  });
});
