import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterBundlingFor,
  esbuildOptionsFor,
  LAZY_EVERYWHERE,
  LAZY_PACKAGES,
  lazyPackageCommands,
  lazyPackagesOf,
  SDK_CREDENTIAL_SOURCES,
} from '#lib/bundling.ts';
import { runModuleScript } from '#test/support/run-module.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Lazy packages (lib/bundling.ts) stay out of a function's bundle and are built beside it. Built
 * here as the CDK builds them, into a folder outside the repository, and run in a fresh Node process
 * there: the project's code finds them through its own `import()`, nothing from node_modules.
 */
/**
 * Every function built once, as the CDK builds it, for both suites below: what each bundle holds
 * (esbuild's metafile) and the bundle itself, in the folder the cold-start suite runs them from.
 */
const functions = readdirSync(join(ROOT, 'functions'));
const bundlesDir = mkdtempSync(join(tmpdir(), 'knowledge-cold-'));
/** The modules whose code is in each function's bundle. */
const bundleInputs = new Map<string, string[]>();
let bundled: Promise<void> | undefined;
const bundleAll = () =>
  (bundled ??= Promise.all(
    functions.map(async (name) => {
      const { metafile } = await build({
        ...esbuildOptionsFor(join(ROOT, 'functions', name, 'index.ts')),
        outfile: join(bundlesDir, name, 'index.mjs'),
        metafile: true,
        logLevel: 'error',
      });
      bundleInputs.set(
        name,
        Object.entries(Object.values(metafile.outputs)[0]!.inputs)
          .filter(([, v]) => v.bytesInOutput > 0)
          .map(([input]) => input),
      );
    }),
  ).then(() => undefined));
afterAll(() => rmSync(bundlesDir, { recursive: true, force: true }));

describe('lazy packages beside a bundle', () => {
  let dir: string;
  const inputsOf = new Map<string, string[]>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lazy-packages-'));
    await bundleAll();
    for (const name of Object.keys(LAZY_PACKAGES)) inputsOf.set(name, bundleInputs.get(name)!);
    // The entry the child runs: the project's own code paths that import the lazy packages.
    const probe = join(dir, 'probe.ts');
    writeFileSync(
      probe,
      [
        `export { renderInvoicePdf } from ${JSON.stringify(join(ROOT, 'areas/billing/invoice-pdf.ts'))};`,
        `export { sanitizeHtml } from ${JSON.stringify(join(ROOT, 'areas/content/admin/sanitize.ts'))};`,
        `export { compileSchema } from ${JSON.stringify(join(ROOT, 'areas/llm-gateway/schema-check.ts'))};`,
      ].join('\n'),
    );
    await build({
      ...esbuildOptionsFor(probe, 'content-admin'),
      external: [...new Set(Object.values(LAZY_PACKAGES).flat())],
      outfile: join(dir, 'probe.mjs'),
      logLevel: 'error',
    });
    // The SDK's default credential chain, built as every function builds it.
    writeFileSync(join(dir, 'chain.ts'), "export { defaultProvider } from '@aws-sdk/credential-provider-node';");
    await build({
      ...esbuildOptionsFor(join(dir, 'chain.ts'), 'catalog'),
      nodePaths: [join(ROOT, 'node_modules')],
      outfile: join(dir, 'chain.mjs'),
      logLevel: 'error',
    });
    for (const command of [
      ...afterBundlingFor('billing')(ROOT, dir),
      ...afterBundlingFor('content-admin')(ROOT, dir),
      ...lazyPackageCommands(['pg', 'eventsource-parser', 'ajv', 'ajv-formats'])(ROOT, dir),
    ])
      await run('sh', ['-c', command]);
  }, 180_000);

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
    const out = await runModuleScript<{ pdf: string; html: string; fields: unknown; from: string[] }>(script, dir);
    expect(out.pdf).toBe('%PDF-');
    expect(out.html).toBe('<p>hi</p>');
    expect(out.fields).toEqual({ alt: 'A cat' });
    for (const resolved of out.from)
      expect(resolved).toMatch(new RegExp(`^file://${dir}/node_modules/[a-z-]+/index\\.mjs$`));
  });

  it("leaves the SDK's credential sources and nested clients out of every bundle", () => {
    for (const [name, inputs] of inputsOf)
      for (const pkg of [...SDK_CREDENTIAL_SOURCES, '@aws-sdk/nested-clients', '@aws-sdk/credential-provider-login'])
        expect(
          inputs.filter((i) => i.includes(`node_modules/${pkg}/`)),
          `${name}: ${pkg}`,
        ).toEqual([]);
  });

  it("finds a profile's credentials through the sources built beside the bundle, as the SDK's chain does off Lambda", async () => {
    writeFileSync(
      join(dir, 'credentials'),
      '[bench]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = secret\n',
    );
    const script = `const { defaultProvider } = await import('./chain.mjs');
const credentials = await defaultProvider()();
process.stdout.write(JSON.stringify({ key: credentials.accessKeyId, from: import.meta.resolve('@aws-sdk/credential-provider-ini') }));`;
    const out = await runModuleScript<{ key: string; from: string }>(script, dir, {
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_SESSION_TOKEN: '',
      AWS_PROFILE: 'bench',
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'),
      AWS_CONFIG_FILE: join(dir, 'no-config'),
    });
    expect(out).toEqual({
      key: 'AKIDPROFILE',
      from: `file://${dir}/node_modules/@aws-sdk/credential-provider-ini/index.mjs`,
    });
  });

  it('loads the SDK clients, Metrics and jose built beside the bundle, each a working module of its own', async () => {
    const script = `const out = {};
for (const pkg of ${JSON.stringify([...LAZY_EVERYWHERE.filter((p) => !SDK_CREDENTIAL_SOURCES.includes(p)), '@aws-sdk/client-s3'])}) {
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
    const out = await runModuleScript<Record<string, { from: string; works: string }>>(script, dir);
    expect(Object.keys(out)).toHaveLength(LAZY_EVERYWHERE.length - SDK_CREDENTIAL_SOURCES.length + 1);
    for (const [pkg, { from, works }] of Object.entries(out)) {
      expect(from, pkg).toBe(`file://${dir}/node_modules/${pkg}/index.mjs`);
      // A client's send, Metrics' publish, or the CryptoKey jose made.
      expect(works, pkg).toMatch(pkg === 'jose' ? /^object$/ : /^function$/);
    }
  });

  it('gives the database tools a working pg built beside the agent-runtime bundle', async () => {
    // What areas/tools/built-in/database.ts does on first use: the default export's Client, made
    // from a connection string (no server here: connecting is the tool's own test).
    const script = `const { default: pg } = await import('pg');
const client = new pg.Client({ connectionString: 'postgres://u:p@db.example:5432/app', query_timeout: 1000 });
process.stdout.write(JSON.stringify({ from: import.meta.resolve('pg'), host: client.host, database: client.database, query: typeof client.query }));`;
    expect(await runModuleScript(script, dir)).toEqual({
      from: `file://${dir}/node_modules/pg/index.mjs`,
      host: 'db.example',
      database: 'app',
      query: 'function',
    });
  });

  it("checks structured outputs with Ajv and its formats built beside the gateway's bundle, each on its own", async () => {
    const script = `const { compileSchema } = await import('./probe.mjs');
const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['at', 'by'], additionalProperties: false,
  properties: { at: { type: 'string', format: 'date-time' }, by: { $ref: '#/$defs/mail' } }, $defs: { mail: { type: 'string', format: 'email' } } };
const { validate } = await compileSchema(schema);
const broken = await compileSchema({ type: 'strin' });
process.stdout.write(JSON.stringify({
  from: ['ajv', 'ajv-formats'].map((p) => import.meta.resolve(p)),
  good: validate({ at: '2026-01-31T09:15:00.000Z', by: 'a@example.com' }),
  badMail: validate({ at: '2026-01-31T09:15:00.000Z', by: 'nobody' }),
  extra: validate({ at: '2026-01-31T09:15:00.000Z', by: 'a@example.com', x: 1 }),
  broken: 'error' in broken,
}));`;
    expect(await runModuleScript(script, dir)).toEqual({
      from: [`file://${dir}/node_modules/ajv/index.mjs`, `file://${dir}/node_modules/ajv-formats/index.mjs`],
      good: true,
      badMail: false,
      extra: false,
      broken: true,
    });
  });

  it('gives the gateway a working eventsource-parser built beside its bundle', async () => {
    const script = `const { createParser } = await import('eventsource-parser');
const data = [];
const parser = createParser({ onEvent: (e) => data.push(e.data) });
for (const chunk of [': ping\\r\\n\\r\\ndata: {"a"', ':1}\\r', '\\n\\r\\n']) parser.feed(chunk);
process.stdout.write(JSON.stringify({ from: import.meta.resolve('eventsource-parser'), data }));`;
    expect(await runModuleScript(script, dir)).toEqual({
      from: `file://${dir}/node_modules/eventsource-parser/index.mjs`,
      data: ['{"a":1}'],
    });
  });
});

/**
 * The knowledge packages (the worker's parsers, the tokenizer) and the gateway's
 * server-sent event parser at a cold start: every function is built as the CDK builds it and
 * imported in a fresh Node process with stand-ins of the five packages beside it that record their
 * own loading. No import may load one; the code that needs one loads it on first use, and only the
 * knowledge worker carries the parsers.
 */
const KNOWLEDGE_PACKAGES = [
  'unpdf',
  'mammoth',
  'html-to-text',
  'robots-parser',
  'linkedom',
  '@mozilla/readability',
  'gpt-tokenizer',
  'eventsource-parser',
] as const;
/** The worker's readers: of files, and of a source's pages (robots.txt, the DOM, the article). */
const PARSERS = ['unpdf', 'mammoth', 'html-to-text', 'robots-parser', 'linkedom', '@mozilla/readability'];
/** Each stand-in records its load, then offers the few names the project's code calls. */
const STAND_INS: Record<(typeof KNOWLEDGE_PACKAGES)[number], string> = {
  unpdf:
    'export const getDocumentProxy = async () => ({}); export const extractText = async () => ({ text: ["pdf"] });',
  mammoth: 'export default { extractRawText: async () => ({ value: "docx" }) };',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the stand-in's source text, whose template literal runs in the stand-in
  'html-to-text': 'export const convert = (html) => `converted ${html.length}`;',
  'robots-parser': 'export default () => ({ isAllowed: () => true, getCrawlDelay: () => undefined });',
  linkedom: 'export const parseHTML = () => ({ document: {} });',
  '@mozilla/readability': 'export class Readability { parse() { return null; } }',
  'gpt-tokenizer':
    'export const countTokens = (t) => t.split(" ").length; export const encode = (t) => [...t].map((c) => c.charCodeAt(0)); export const decode = (a) => String.fromCharCode(...a);',
  'eventsource-parser': 'export const createParser = () => ({ feed() {}, reset() {} });',
};

describe('knowledge packages at a cold start', () => {
  const dir = bundlesDir;
  const code = new Map<string, string>();
  const inlined = new Map<string, string[]>();

  beforeAll(async () => {
    for (const pkg of KNOWLEDGE_PACKAGES) {
      mkdirSync(join(dir, 'node_modules', pkg), { recursive: true });
      writeFileSync(join(dir, 'node_modules', pkg, 'package.json'), '{"type":"module","main":"index.mjs"}');
      writeFileSync(
        join(dir, 'node_modules', pkg, 'index.mjs'),
        `(globalThis.__loaded ??= []).push(${JSON.stringify(pkg)});\n${STAND_INS[pkg]}`,
      );
    }
    await bundleAll();
    for (const name of functions)
      inlined.set(
        name,
        bundleInputs.get(name)!.filter((input) => KNOWLEDGE_PACKAGES.some((p) => input.includes(`node_modules/${p}/`))),
      );
    for (const name of functions) code.set(name, readFileSync(join(dir, name, 'index.mjs'), 'utf8'));
    // The project's code paths that need a parser or the tokenizer, built as the worker builds them.
    writeFileSync(
      join(dir, 'probe.ts'),
      [
        `export { extractText } from ${JSON.stringify(join(ROOT, 'areas/knowledge/parse.ts'))};`,
        `export { countTokens } from ${JSON.stringify(join(ROOT, 'areas/llm-gateway/tokens.ts'))};`,
      ].join('\n'),
    );
    await build({
      ...esbuildOptionsFor(join(dir, 'probe.ts'), 'knowledge-worker'),
      outfile: join(dir, 'probe.mjs'),
      logLevel: 'error',
    });
  }, 180_000);

  it('inlines none of them in any function: each is external where it is used, and absent elsewhere', () => {
    expect(functions.length).toBeGreaterThan(20);
    for (const name of functions) expect(inlined.get(name), name).toEqual([]);
  });

  it('imports them only with import(), and the parsers only in the knowledge worker', () => {
    const users = (pkg: string) => functions.filter((name) => code.get(name)!.includes(`import("${pkg}")`)).sort();
    for (const name of functions)
      for (const pkg of KNOWLEDGE_PACKAGES)
        expect(code.get(name), `${name}: ${pkg}`).not.toMatch(new RegExp(`(from|import)\\s*"${pkg}"`));
    for (const pkg of PARSERS) expect(users(pkg), pkg).toEqual(['knowledge-worker']);
    expect(users('gpt-tokenizer')).toEqual(expect.arrayContaining(['knowledge', 'knowledge-worker', 'llm-gateway']));
    expect(users('eventsource-parser')).toEqual(expect.arrayContaining(['llm-gateway', 'agent-runtime']));
    for (const name of new Set(KNOWLEDGE_PACKAGES.flatMap(users)))
      for (const pkg of KNOWLEDGE_PACKAGES.filter((p) => users(p).includes(name)))
        expect(lazyPackagesOf(name), `${name} builds ${pkg} beside its bundle`).toContain(pkg);
  });

  it('loads none of them when a function starts, and each only when first used', async () => {
    const script = `const loaded = {};
for (const name of ${JSON.stringify(functions)}) {
  globalThis.__loaded = [];
  await import(new URL(\`./\${name}/index.mjs\`, ${JSON.stringify(pathToFileURL(`${dir}/`).href)}).href);
  loaded[name] = globalThis.__loaded;
}
const probe = await import('./probe.mjs');
globalThis.__loaded = [];
const html = await probe.extractText('text/html', new TextEncoder().encode('<p>Opening hours</p>'));
const afterHtml = [...globalThis.__loaded];
const pdf = await probe.extractText('application/pdf', new TextEncoder().encode('%PDF-1.4'));
const tokens = await probe.countTokens('three small words');
process.stdout.write(JSON.stringify({ loaded, html, afterHtml, pdf, afterTokens: globalThis.__loaded, tokens }));`;
    const out = await runModuleScript<{
      loaded: Record<string, string[]>;
      html: string;
      afterHtml: string[];
      pdf: string;
      afterTokens: string[];
      tokens: number;
    }>(script, dir, {
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_SUPPRESS_NODE_DEPRECATION_WARNING: '1',
    });
    expect(Object.keys(out.loaded)).toHaveLength(functions.length);
    for (const name of functions) expect(out.loaded[name], name).toEqual([]);
    // First use loads only what that use needs: an HTML file the HTML parser, a count the tokenizer.
    expect(out.afterHtml).toEqual(['html-to-text']);
    expect(out.html).toBe('converted 20');
    // A PDF is read in a thread of its own (parse-thread.ts), which finds the parser built beside the bundle.
    expect(out.pdf).toBe('pdf');
    expect(out.afterTokens).toEqual(['html-to-text', 'gpt-tokenizer']);
    expect(out.tokens).toBe(3);
  }, 120_000);
});

/**
 * Events and upward queries (shared/data/events.ts, queries.ts) reach the higher area only through
 * the entry point's wiring. A function whose bundle can emit an event (or ask a query) and whose
 * entry point wires no subscriber (or answer) for it would throw at the emit in production: every
 * bundle's code is read for what it emits and asks, and its entry point for what it wires.
 */
describe('events and queries are wired in every function that emits or asks them', () => {
  const source = (file: string) => readFileSync(join(ROOT, file), 'utf8');
  /** Every event and query the areas declare, by the constant that holds it. */
  const declared = new Map<string, string>();
  for (const file of readdirSync(join(ROOT, 'areas'), { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue;
    for (const [, name, kind, id] of source(join('areas', file)).matchAll(
      /export const (\w+) = define(Event|Query)(?:<[^(]*>)?\(\s*'([^']+)'/g,
    ))
      declared.set(name!, `${kind!.toLowerCase()}:${id}`);
  }
  const used = (text: string, verbs: string) =>
    [...text.matchAll(new RegExp(`\\b(?:${verbs})\\(\\s*(\\w+)\\s*,`, 'g'))].flatMap(([, n]) =>
      declared.has(n!) ? [declared.get(n!)!] : [],
    );

  beforeAll(() => bundleAll(), 180_000);

  it('finds the declarations', () => {
    expect([...declared.values()]).toEqual(
      expect.arrayContaining(['event:knowledge.base-deleted', 'query:tools.tenant-agents']),
    );
  });

  it('every function wires a subscriber for each event its bundle emits, and an answer for each query it asks', () => {
    const missing: string[] = [];
    for (const name of functions) {
      const needed = new Set(
        bundleInputs
          .get(name)!
          .filter((f) => /^(areas|shared)\/.*\.ts$/.test(f))
          .flatMap((f) => used(source(f), 'emit|ask')),
      );
      const wired = new Set(used(source(join('functions', name, 'index.ts')), 'on|answer'));
      for (const n of needed) if (!wired.has(n)) missing.push(`${name}: ${n}`);
    }
    expect(missing).toEqual([]);
  });
});
