import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first, so none of them starts last and leaves one core idle
 * at the end of the run (a clean clone, as in CI, has no duration cache to order by). Measured in a
 * whole `npm test`; a file missing here only runs in the default order.
 */
const LONG_FILES = [
  'test/deployed/deployed.test.ts',
  'test/integration/hardening/hardening-fuzz.test.ts',
  'test/clone/fresh-clone.test.ts',
  'test/integration/hardening/hardening-faults.test.ts',
  'test/integration/hardening/hardening-auth.test.ts',
  'test/unit/lazy-packages.test.ts',
  'test/integration/hardening/hardening-tenancy.test.ts',
  'test/integration/knowledge/ai-knowledge-volume.test.ts',
  'test/integration/knowledge/ai-knowledge-quality.test.ts',
  'test/integration/hardening/hardening-mass-assignment.test.ts',
  'test/integration/connector/ai-connector-pacing.test.ts',
];

/** Every e2e file waits for the one before it (e2e-one-file-at-a-time.ts): spread them among the others. */
const E2E_EVERY = 4;

export class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rel = (f: TestSpecification) => f.moduleId.slice(this.ctx.config.root.length).replace(/^\//, '');
    const rank = (f: TestSpecification) => {
      const i = LONG_FILES.indexOf(rel(f));
      return i < 0 ? LONG_FILES.length : i;
    };
    const long = sorted.filter((f) => rank(f) < LONG_FILES.length).sort((a, b) => rank(a) - rank(b));
    const rest = sorted.filter((f) => rank(f) === LONG_FILES.length);
    const e2e = rest.filter((f) => f.project.name === 'e2e');
    const others = rest.filter((f) => f.project.name !== 'e2e');
    const out = [...long];
    for (const [i, f] of others.entries()) {
      if (i % E2E_EVERY === 0 && e2e.length) out.push(e2e.shift()!);
      out.push(f);
    }
    return [...out, ...e2e];
  }
}
