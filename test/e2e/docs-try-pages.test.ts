import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { e2e } from '#test/support/e2e.ts';
import { runPage, runSetup } from '#test/support/run-doc-page.ts';
import { tempDir } from '#test/support/temp-dir.ts';

const DOCS = fileURLToPath(new URL('../../docs/try/', import.meta.url));

/** The pages run here: each needs only what README.md's "Before you start" sets up. */
const RUN = ['identity.md', 'content.md', 'catalog.md', 'prompts.md', 'bcm.md', 'admin.md', 'vault.md', 'analytics.md'];

/** The pages not run here, and why: each is proven by its area's e2e or integration tests. */
const NOT_RUN: Record<string, string> = {
  'agents.md': 'needs a knowledge base from knowledge.md',
  'approvals.md': 'builds on agents.md and an agent conversation',
  'billing.md': 'goes through the payment stand-ins in a browser',
  'calendars.md': 'needs an agent from agents.md',
  'connector.md': 'needs agents and channel connections from agents.md',
  'conversations.md': 'needs a published agent and widget from agents.md',
  'knowledge.md': 'waits for indexing of uploaded files',
  'llm-gateway.md': 'streams for seconds and spends the tenant allowance the other pages share',
  'outbound-webhooks.md': 'needs a receiver the reader starts',
  'tools.md': 'needs a knowledge base and an agent',
  'widget.md': 'is tried in a browser',
};

const hasJq = (() => {
  try {
    execFileSync('jq', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

it('every page of docs/try is run here or says why not', () => {
  const pages = readdirSync(DOCS).filter((f) => f.endsWith('.md') && f !== 'README.md');
  expect([...RUN, ...Object.keys(NOT_RUN)].sort()).toEqual(pages.sort());
});

// The pages use jq, as a reader's machine needs it (docs/try/README.md says so).
describe.skipIf(!hasJq)('the walkthroughs of docs/try, run as written against the local server', () => {
  const vars = join(tempDir('doc-pages-'), 'vars.sh');
  // Sign-in is limited to 5 a minute per address: the setup and each page send from their own.
  const address = (i: number) => `127.0.42.${10 + i}`;

  beforeAll(async () => {
    const setup = await runSetup(join(DOCS, 'README.md'), e2e(), vars, 90_000, address(0));
    if (setup.code !== 0) throw new Error(`docs/try/README.md failed (${setup.code}):\n${setup.output}`);
  }, 120_000);

  it.each(RUN.map((page, i) => [page, i + 1] as const))('%s', async (page, i) => {
    const run = await runPage(join(DOCS, page), e2e(), vars, 50_000, address(i));
    expect(run.code, `docs/try/${page} failed:\n${run.output}`).toBe(0);
  });
});
