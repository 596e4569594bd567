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
const RUN = [
  'identity.md',
  'content.md',
  'catalog.md',
  'prompts.md',
  'bcm.md',
  'admin.md',
  'vault.md',
  'analytics.md',
  'billing.md',
  // Last: it lowers the tenant's allowance to show the refusal, then gives it back.
  'llm-gateway.md',
];

/** The pages not run here, and what stops them running alone after the setup. */
const NOT_RUN: Record<string, string> = {
  'agents.md': 'needs $KB, a knowledge base of knowledge.md',
  'approvals.md': 'needs a published agent with a side-effecting tool (agents.md)',
  'calendars.md': 'needs $P, the prompt of agents.md',
  'connector.md': 'needs $AGENT, the agent of agents.md',
  'conversations.md': "needs $W, a published agent's widget key (agents.md)",
  'knowledge.md': "uploads a file of the reader's own (manual.pdf)",
  'outbound-webhooks.md': 'writes a receiver into the checkout and listens on port 4010',
  'tools.md': 'needs $AGENT, the agent of agents.md',
  'widget.md': 'needs $AGENT and a browser',
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
