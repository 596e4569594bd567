import './env.ts';
import { writeFile } from 'node:fs/promises';
import { measureGateway } from './gateway.ts';
import { print, restoreStdout, sinkStdout, startHarness } from './harness.ts';

/** `npm run bench:gateway`: the gateway phase of `npm run bench` alone. */
sinkStdout();
const h = await startHarness();
try {
  const results = await measureGateway(h);
  print(JSON.stringify(results, null, 2));
  await writeFile(new URL('./gateway-results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
} finally {
  await h.stop();
  restoreStdout();
}
