import './env.ts';
import { startHarness } from './harness.ts';
import { measureKnowledge } from './knowledge.ts';

/** `npm run bench:knowledge`: the knowledge phase of `npm run bench` alone. */
const h = await startHarness();
try {
  await measureKnowledge(h, (process.env.BENCH_KNOWLEDGE_SIZES ?? '1000,10000').split(',').map(Number));
} finally {
  await h.stop();
}
