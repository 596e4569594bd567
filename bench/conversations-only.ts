import './env.ts';
import { writeFile } from 'node:fs/promises';
import { measureConversations } from './conversations.ts';
import { print, restoreStdout, sinkStdout, startHarness } from './harness.ts';

/** `npm run bench:conversations`: the conversations phase of `npm run bench` alone. */
sinkStdout();
const h = await startHarness();
try {
  const results = await measureConversations(h);
  print(JSON.stringify(results, null, 2));
  await writeFile(new URL('./conversations-results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
} finally {
  await h.stop();
  restoreStdout();
}
