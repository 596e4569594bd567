import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterBundlingFor,
  esbuildOptionsFor,
  LAZY_EVERYWHERE,
  LAZY_PACKAGES,
  lazyPackageCommands,
} from '#lib/bundling.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Lazy packages (lib/bundling.ts) stay out of a function's bundle and are built beside it. Built
 * here as the CDK builds them, into a folder outside the repository, and run in a fresh Node process
 * there: the project's code finds them through its own `import()`, nothing from node_modules.
 */
describe('lazy packages beside a bundle', () => {
  let dir: string;
  const inputsOf = new Map<string, string[]>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lazy-packages-'));
    for (const name of Object.keys(LAZY_PACKAGES)) {
      const { metafile } = await build({
        ...esbuildOptionsFor(join(ROOT, 'functions', name, 'index.ts')),
        outfile: join(dir, name, 'index.mjs'),
        metafile: true,
        logLevel: 'error',
      });
      inputsOf.set(
        name,
        Object.entries(Object.values(metafile.outputs)[0]!.inputs)
          .filter(([, v]) => v.bytesInOutput > 0)
          .map(([input]) => input),
      );
    }
    // The entry the child runs: the project's own code paths that import the lazy packages.
    const probe = join(dir, 'probe.ts');
    writeFileSync(
      probe,
      [
        `export { renderInvoicePdf } from ${JSON.stringify(join(ROOT, 'areas/billing/invoice-pdf.ts'))};`,
        `export { sanitizeHtml } from ${JSON.stringify(join(ROOT, 'areas/content/admin/sanitize.ts'))};`,
      ].join('\n'),
    );
    await build({
      ...esbuildOptionsFor(probe, 'content-admin'),
      external: [...new Set(Object.values(LAZY_PACKAGES).flat())],
      outfile: join(dir, 'probe.mjs'),
      logLevel: 'error',
    });
    for (const command of [
      ...afterBundlingFor('billing')(ROOT, dir),
      ...afterBundlingFor('content-admin')(ROOT, dir),
      ...lazyPackageCommands(['pg'])(ROOT, dir),
    ])
      await run('sh', ['-c', command]);
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves no code of a lazy package in the function bundle', () => {
    for (const [name, packages] of Object.entries(LAZY_PACKAGES)) {
      const inputs = inputsOf.get(name)!;
      expect(inputs.length, name).toBeGreaterThan(50);
      for (const pkg of packages)
        expect(
          inputs.filter((i) => i.includes(`node_modules/${pkg}/`)),
          `${name}: ${pkg}`,
        ).toEqual([]);
    }
  });

  it('renders an invoice PDF, sanitizes HTML and parses multipart with the packages built beside the code', async () => {
    const script = `const m = await import('./probe.mjs');
const pdf = await m.renderInvoicePdf({ id: 'inv-1', tenantId: 't-1', tenantName: 'Acme', planName: 'Pro', amountMinor: 1250, currency: 'EUR', statusLabel: 'Paid', issuedAt: '2026-11-01T00:00:00.000Z', paidAt: null, items: [{ description: 'Plan', amountMinor: 1250, quantity: 1 }] });
const html = await m.sanitizeHtml('<p onclick="x()">hi</p><script>alert(1)</script>');
const { default: busboy } = await import('busboy');
const fields = await new Promise((resolve) => {
  const got = {};
  const bb = busboy({ headers: { 'content-type': 'multipart/form-data; boundary=b' } });
  bb.on('field', (k, v) => (got[k] = v)).on('close', () => resolve(got));
  bb.end('--b\\r\\nContent-Disposition: form-data; name="alt"\\r\\n\\r\\nA cat\\r\\n--b--\\r\\n');
});
process.stdout.write(JSON.stringify({ pdf: Buffer.from(pdf.slice(0, 5)).toString(), html, fields, from: ['pdf-lib', 'sanitize-html', 'busboy'].map((p) => import.meta.resolve(p)) }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      env: { ...process.env, NODE_PATH: '' },
    });
    const out = JSON.parse(stdout);
    expect(out.pdf).toBe('%PDF-');
    expect(out.html).toBe('<p>hi</p>');
    expect(out.fields).toEqual({ alt: 'A cat' });
    for (const resolved of out.from)
      expect(resolved).toMatch(new RegExp(`^file://${dir}/node_modules/[a-z-]+/index\\.mjs$`));
  });

  it('loads the SDK clients, Metrics and jose built beside the bundle, each a working module of its own', async () => {
    const script = `const out = {};
for (const pkg of ${JSON.stringify([...LAZY_EVERYWHERE, '@aws-sdk/client-s3'])}) {
  const m = await import(pkg);
  let works;
  if (pkg === 'jose') works = typeof (await m.generateKeyPair('ES256')).publicKey;
  else {
    const name = Object.keys(m).find((k) => /^[A-Z][A-Za-z0-9]*Client$/.test(k)) ?? 'Metrics';
    const made = new m[name]({ region: 'us-east-1', namespace: 'x' });
    works = typeof (made.send ?? made.publishStoredMetrics);
  }
  out[pkg] = { from: import.meta.resolve(pkg), works };
}
process.stdout.write(JSON.stringify(out));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      env: { ...process.env, NODE_PATH: '' },
    });
    const out = JSON.parse(stdout) as Record<string, { from: string; works: string }>;
    expect(Object.keys(out)).toHaveLength(LAZY_EVERYWHERE.length + 1);
    for (const [pkg, { from, works }] of Object.entries(out)) {
      expect(from, pkg).toBe(`file://${dir}/node_modules/${pkg}/index.mjs`);
      // A client's send, Metrics' publish, or the CryptoKey jose made.
      expect(works, pkg).toMatch(pkg === 'jose' ? /^object$/ : /^function$/);
    }
  });

  it('gives the database tools a working pg built beside the agent-runtime bundle', async () => {
    // What areas/ai/agents/tools/database.ts does on first use: the default export's Client, made
    // from a connection string (no server here: connecting is the tool's own test).
    const script = `const { default: pg } = await import('pg');
const client = new pg.Client({ connectionString: 'postgres://u:p@db.example:5432/app', query_timeout: 1000 });
process.stdout.write(JSON.stringify({ from: import.meta.resolve('pg'), host: client.host, database: client.database, query: typeof client.query }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      env: { ...process.env, NODE_PATH: '' },
    });
    expect(JSON.parse(stdout)).toEqual({
      from: `file://${dir}/node_modules/pg/index.mjs`,
      host: 'db.example',
      database: 'app',
      query: 'function',
    });
  });
});
