import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { esbuildOptionsFor } from '#lib/bundling.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The source files whose code ends up in a function's bundle, built exactly as the stack builds it. */
async function bundledInputs(name: string): Promise<string[]> {
  const { metafile } = await build({
    ...esbuildOptionsFor(join(ROOT, 'functions', name, 'index.ts')),
    absWorkingDir: ROOT,
    write: false,
    outfile: join(ROOT, 'cdk.out', 'probe', name, 'index.mjs'),
    metafile: true,
    logLevel: 'error',
  });
  return Object.values(metafile.outputs).flatMap((o) =>
    Object.entries(o.inputs)
      .filter(([, v]) => v.bytesInOutput > 0)
      .map(([input]) => input),
  );
}

/**
 * The local payment providers' stand-in is installed as a port by the local server and the tests
 * (shared/platform/ports.ts); no billing function bundles it. The billing function used to import it
 * dynamically, which esbuild inlines: this test failed then.
 */
describe('billing bundles carry no local stand-in', () => {
  for (const name of ['billing', 'webhooks', 'webhook-worker']) {
    it(`${name}: nothing from local/, the billing code itself inside`, async () => {
      const inputs = await bundledInputs(name);
      expect(inputs.some((i) => i.startsWith('areas/billing/'))).toBe(true);
      expect(inputs.filter((i) => i.startsWith('local/'))).toEqual([]);
    }, 60_000);
  }
});
