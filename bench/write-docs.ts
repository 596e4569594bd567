import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DOC_FILES, docSections, fillSections } from './docs.ts';
import { ROOT } from './functions.ts';
import type { Results } from './report.ts';

/** `npm run bench:docs`: rewrites the generated sections of the docs from bench/results.json. */
export async function writeDocs(results?: Results): Promise<string[]> {
  const r = results ?? (JSON.parse(await readFile(join(ROOT, 'bench', 'results.json'), 'utf8')) as Results);
  const sections = docSections(r);
  const changed: string[] = [];
  for (const file of DOC_FILES) {
    const path = join(ROOT, file);
    const before = await readFile(path, 'utf8');
    const after = fillSections(before, sections);
    if (after !== before) {
      await writeFile(path, after);
      changed.push(file);
    }
  }
  return changed;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const changed = await writeDocs();
  console.log(changed.length ? `Rewrote ${changed.join(', ')}` : 'Docs already match bench/results.json');
}
