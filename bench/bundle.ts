import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { afterBundlingFor, esbuildOptionsFor } from '#lib/bundling.ts';
import { childEnv } from './cold-init.ts';
import { OUT_DIR, ROOT, type BenchFunction } from './functions.ts';
import {
  clientClassName,
  clientTiming,
  floorEntrySource,
  floorKey,
  sdkClientPackages,
  type ClientTiming,
  type FloorClient,
  type ProbeReport,
} from './stats.ts';

export interface BundleResult {
  name: string;
  outfile: string;
  bytes: number;
  /** `@aws-sdk/client-*` and `@aws-sdk/lib-dynamodb` packages with code in the bundle. */
  sdkPackages: string[];
  /** Largest contributors by package (KB in the minified output). */
  topPackages: { pkg: string; kb: number }[];
  /** When the bundle evaluates and constructs each of its SDK clients (from the probe build). */
  clients: FloorClient[];
  /** When lib-dynamodb is evaluated; null when the bundle has none. */
  documentClient: ClientTiming | null;
}

export interface FloorBundle {
  key: string;
  outfile: string;
  bytes: number;
  clients: FloorClient[];
}

/** esbuild with the CDK's options, written where we say and with a metafile. */
async function buildLikeCdk(entry: string, outfile: string, plugins: Plugin[] = []): Promise<Metafile> {
  const options: BuildOptions = {
    ...esbuildOptionsFor(entry),
    outdir: undefined,
    outfile,
    metafile: true,
    write: true,
    logLevel: 'error',
    plugins,
  };
  const result = await build(options);
  return result.metafile!;
}

const packageOf = (input: string) =>
  /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input.replace(/\\/g, '/'))?.[1] ?? '(project)';

export async function bundleFunction(fn: BenchFunction): Promise<BundleResult> {
  const outfile = join(OUT_DIR, fn.name, 'index.mjs');
  const metafile = await buildLikeCdk(fn.entry, outfile);
  // What the CDK runs after esbuild (lazy packages beside the bundle): the asset is complete.
  for (const command of afterBundlingFor(fn.name)(ROOT, dirname(outfile)))
    await promisify(execFile)('sh', ['-c', command]);
  const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith('.mjs') || path.endsWith('.js'))![1];
  const contributing = Object.entries(output.inputs).filter(([, v]) => v.bytesInOutput > 0);
  const byPackage = new Map<string, number>();
  for (const [input, v] of contributing)
    byPackage.set(packageOf(input), (byPackage.get(packageOf(input)) ?? 0) + v.bytesInOutput);
  const sdkPackages = sdkClientPackages(contributing.map(([input]) => input));
  const probe = await probeClients(fn, sdkPackages);
  const clients = await Promise.all(
    sdkPackages.filter((p) => p.startsWith('@aws-sdk/client-')).map((p) => floorClient(p, clientTiming(p, probe))),
  );
  return {
    name: fn.name,
    outfile,
    bytes: output.bytes,
    sdkPackages,
    topPackages: [...byPackage]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([pkg, bytes]) => ({ pkg, kb: Math.round(bytes / 102.4) / 10 })),
    clients,
    documentClient: sdkPackages.includes(DOC_PACKAGE) ? clientTiming(DOC_PACKAGE, probe) : null,
  };
}

const DOC_PACKAGE = '@aws-sdk/lib-dynamodb';
const SDK_IMPORT = /^@aws-sdk\/(client-[a-z0-9-]+|lib-dynamodb)$/;
const PROBE = 'globalThis.__benchProbe ??= { evaluated: [], constructed: [] }';

/**
 * The probe build: the function built as CDK builds it, except that the project's own imports of
 * an SDK client package go through a stand-in module that records when it is evaluated and when
 * its client class is constructed. Importing the probe in a fresh process tells whether the
 * function constructs its clients at import, on first use, or loads them only on first use.
 */
async function probeClients(fn: BenchFunction, sdkPackages: readonly string[]): Promise<ProbeReport> {
  if (!sdkPackages.length) return { evaluated: [], constructed: [] };
  const plugin: Plugin = {
    name: 'bench-client-probe',
    setup(b) {
      b.onResolve({ filter: SDK_IMPORT }, (args) =>
        args.namespace === 'file' && !args.importer.includes('node_modules')
          ? { path: args.path, namespace: 'bench-probe' }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'bench-probe' }, async (args) => {
        const pkg = args.path;
        const lines = [`${PROBE}; globalThis.__benchProbe.evaluated.push('${pkg}');`, `export * from '${pkg}';`];
        if (pkg !== DOC_PACKAGE) {
          const { className } = await floorClient(pkg, 'imported');
          lines.push(
            `import { ${className} as Real } from '${pkg}';`,
            `export class ${className} extends Real { constructor(...a) { super(...a); globalThis.__benchProbe.constructed.push('${pkg}'); } }`,
          );
        }
        return { contents: lines.join('\n'), resolveDir: ROOT, loader: 'js' };
      });
    },
  };
  const outfile = join(OUT_DIR, fn.name, 'probe.mjs');
  await buildLikeCdk(fn.entry, outfile, [plugin]);
  const script = `await import(process.argv[1]); process.stdout.write(JSON.stringify(globalThis.__benchProbe ?? { evaluated: [], constructed: [] }));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', script, pathToFileURL(outfile).href],
    {
      env: childEnv(),
    },
  );
  return JSON.parse(stdout) as ProbeReport;
}

const classNames = new Map<string, string>();

async function floorClient(pkg: string, timing: ClientTiming): Promise<FloorClient> {
  if (!classNames.has(pkg)) {
    const mod = (await import(pkg)) as Record<string, unknown>;
    const className = clientClassName(Object.keys(mod).filter((k) => typeof mod[k] === 'function'));
    if (!className) throw new Error(`No client class found in ${pkg}`);
    classNames.set(pkg, className);
  }
  return { pkg, className: classNames.get(pkg)!, timing };
}

const floors = new Map<string, Promise<FloorBundle>>();

/**
 * The floor of a bundle (`floorEntrySource`): the SDK clients it evaluates at import, constructed
 * in the handler, built with the same options; one per distinct combination.
 */
export function floorFor({ clients }: Pick<BundleResult, 'clients'>): Promise<FloorBundle> {
  const key = floorKey(clients);
  if (!floors.has(key)) {
    floors.set(
      key,
      (async () => {
        const dir = join(OUT_DIR, `floor-${key}`);
        await mkdir(dir, { recursive: true });
        const entry = join(dir, 'entry.mjs');
        await writeFile(entry, floorEntrySource(clients));
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
