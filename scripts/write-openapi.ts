/**
 * `npm run openapi`: writes this API's OpenAPI 3.1 document for client generators.
 *   npm run openapi                                  → docs/openapi.json
 *   npm run openapi -- --out api.json --server https://api.example.com
 *   --compact: no indentation (the system function's bundling step writes it so)
 * The document is the one `GET /api/openapi.json` serves; `--server` adds a `servers` entry
 * (without it, clients resolve paths against wherever they fetched the document from).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { apiDocument } from '#api/openapi/api-document.ts';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'docs/openapi.json' },
    server: { type: 'string', multiple: true },
    compact: { type: 'boolean', default: false },
  },
});

const out = resolve(values.out);
const document = apiDocument(values.server?.length ? { servers: values.server.map((url) => ({ url })) } : {});
await mkdir(dirname(out), { recursive: true });
await writeFile(out, values.compact ? JSON.stringify(document) : `${JSON.stringify(document, null, 2)}\n`);
const operations = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
console.log(`Wrote ${out}: OpenAPI ${document.openapi}, ${operations} operations`);
