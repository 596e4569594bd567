import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { esbuildOptionsFor } from '../lib/bundling.ts';
import { OUT_DIR, ROOT, type BenchFunction } from './functions.ts';
import { clientClassName, floorEntrySource, sdkClientPackages, type FloorClient } from './stats.ts';

export interface BundleResult {
  name: string;
  outfile: string;
  bytes: number;
  /** `@aws-sdk/client-*` and `@aws-sdk/lib-dynamodb` packages with code in the bundle. */
  sdkPackages: string[];
  /** Largest contributors by package (KB in the minified output). */
  topPackages: { pkg: string; kb: number }[];
}

export interface FloorBundle {
  key: string;
  outfile: string;
  bytes: number;
  clients: FloorClient[];
}

/** esbuild with the CDK's options, written where we say and with a metafile. */
async function buildLikeCdk(entry: string, outfile: string): Promise<Metafile> {
  const options: BuildOptions = {
    ...esbuildOptionsFor(entry),
    outdir: undefined,
    outfile,
    metafile: true,
    write: true,
    logLevel: 'error',
  };
  const result = await build(options);
  return result.metafile!;
}

const packageOf = (input: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input.replace(/\\/g, '/'))?.[1] ?? '(project)';

export async function bundleFunction(fn: BenchFunction): Promise<BundleResult> {
  const outfile = join(OUT_DIR, fn.name, 'index.mjs');
  const metafile = await buildLikeCdk(fn.entry, outfile);
  const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith('.mjs') || path.endsWith('.js'))![1];
  const contributing = Object.entries(output.inputs).filter(([, v]) => v.bytesInOutput > 0);
  const byPackage = new Map<string, number>();
  for (const [input, v] of contributing) byPackage.set(packageOf(input), (byPackage.get(packageOf(input)) ?? 0) + v.bytesInOutput);
  return {
    name: fn.name,
    outfile,
    bytes: output.bytes,
    sdkPackages: sdkClientPackages(contributing.map(([input]) => input)),
    topPackages: [...byPackage]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([pkg, bytes]) => ({ pkg, kb: Math.round(bytes / 102.4) / 10 })),
  };
}

const classNames = new Map<string, string>();

async function floorClient(pkg: string): Promise<FloorClient> {
  if (!classNames.has(pkg)) {
    const mod = (await import(pkg)) as Record<string, unknown>;
    const className = clientClassName(Object.keys(mod).filter((k) => typeof mod[k] === 'function'));
    if (!className) throw new Error(`No client class found in ${pkg}`);
    classNames.set(pkg, className);
  }
  return { pkg, className: classNames.get(pkg)! };
}

const floors = new Map<string, Promise<FloorBundle>>();

/** The floor for a set of SDK packages: built once per distinct set, with the same options. */
export function floorFor(sdkPackages: readonly string[]): Promise<FloorBundle> {
  const key = sdkPackages.length ? sdkPackages.map((p) => p.replace('@aws-sdk/', '')).join('+') : 'empty';
  if (!floors.has(key)) {
    floors.set(
      key,
      (async () => {
        const clients = await Promise.all(sdkPackages.filter((p) => p.startsWith('@aws-sdk/client-')).map(floorClient));
        const dir = join(OUT_DIR, `floor-${key}`);
        await mkdir(dir, { recursive: true });
        const entry = join(dir, 'entry.mjs');
        await writeFile(entry, floorEntrySource(clients, sdkPackages.includes('@aws-sdk/lib-dynamodb')));
        const outfile = join(dir, 'index.mjs');
        const metafile = await buildLikeCdk(entry, outfile);
        const bytes = Object.values(metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
        return { key, outfile, bytes, clients };
      })(),
    );
  }
  return floors.get(key)!;
}

export const rel = (path: string) => relative(ROOT, path);
