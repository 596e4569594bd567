import './env.ts';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { print, restoreStdout, sinkStdout, startHarness } from './harness.ts';
import { MODES, measureRetrieval } from './retrieval.ts';

/**
 * `npm run bench:retrieval [-- --docs N --queries M --modes keyword,hybrid]`: retrieval quality on
 * SciFact (bench/retrieval.ts). Without options, the whole corpus and every training claim; the
 * figures go to bench/retrieval-results.json only then, so a sample never overwrites them.
 */
const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '5183' },
    queries: { type: 'string', default: '809' },
    modes: { type: 'string', default: MODES.join(',') },
  },
});
const docs = Number(values.docs);
const queries = Number(values.queries);
sinkStdout();
const h = await startHarness();
try {
  const results = await measureRetrieval(h, {
    docs,
    queries,
    modes: values.modes.split(','),
    onProgress: (line) => print(`  ${new Date().toISOString().slice(11, 19)} ${line}`),
  });
  print(JSON.stringify(results, null, 2));
  if (results.documents >= 5183 && results.queries >= 809)
    await writeFile(new URL('./retrieval-results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
} finally {
  await h.stop();
  restoreStdout();
}
