import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });

/**
 * Only the e-mail worker holds the SES grant (test/infra/iam.test.ts), so only code that runs in it
 * may use the mail port; everything else queues (shared/queue/email.ts). A function that called the
 * port directly would fail deployed with AccessDenied while every local test passed (the port is a
 * stand-in there).
 */
const RUNS_IN_EMAIL_WORKER = [
  'functions/email-worker/index.ts',
  // issueResetToken: the RESET_REQUEST handler of the e-mail worker.
  'areas/identity/auth/passwords.ts',
  // sendEscalationNotice: the e-mail worker's handler of a queued escalation notice.
  'areas/conversations/escalation-mail.ts',
];

describe('the mail port', () => {
  it('is used only by code the e-mail worker runs', () => {
    const users = ['areas', 'functions', 'shared']
      .flatMap((d) => files(join(ROOT, d)))
      .filter((f) => /\bmailer\(\)/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f))
      .filter((f) => f !== 'shared/platform/ports.ts');
    expect(users.sort()).toEqual([...RUNS_IN_EMAIL_WORKER].sort());
  });
});
