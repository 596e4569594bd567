import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runBrowser, type SaveScreenshot } from '#areas/tools/browser/run-browser.ts';
import { budgetOf, type BrowserStep } from '#areas/tools/browser/steps.ts';
import { prepareBrowser } from '#test/support/browser.ts';
import { startEchoSite, type EchoSite } from '#test/support/echo-site.ts';

vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');

let site: EchoSite;
const shots: Buffer[] = [];
const save: SaveScreenshot = async (png) => {
  shots.push(png);
  return { url: 'https://example.test/shot.png', expiresAt: new Date().toISOString() };
};

beforeAll(async () => {
  await prepareBrowser();
  site = await startEchoSite();
}, 120_000);
afterAll(() => site.close());
beforeEach(() => {
  site.hits.length = 0;
});

const run = (
  steps: BrowserStep[],
  params: { maxSteps?: number; timeoutSeconds?: number; allowedHosts?: string[] } = {},
) =>
  runBrowser(
    {
      tenantId: crypto.randomUUID(),
      toolId: 'tool',
      requestId: 'req',
      budget: budgetOf({ allowedHosts: ['127.0.0.1', '10.0.0.7', '169.254.169.254'], timeoutSeconds: 20, ...params }),
      steps,
    },
    save,
  );

describe('Browser Action in a real headless Chromium', () => {
  it('fills and submits a form, reads the echoed answer, takes a screenshot', async () => {
    const out = await run([
      { action: 'navigate', url: `${site.origin}/form` },
      { action: 'fill', selector: '#name', value: 'Ada Lovelace' },
      { action: 'select', selector: '#colour', value: 'blue' },
      { action: 'click', text: 'Send order' },
      { action: 'wait_for', selector: '#echo' },
      { action: 'read', selector: '#echo' },
      { action: 'screenshot' },
    ]);
    expect(out.ok).toBe(true);
    const steps = out.result!.steps;
    expect(steps[0]).toMatchObject({ action: 'navigate', ok: true, title: 'Order form' });
    expect(steps[5]).toEqual({ action: 'read', ok: true, text: 'Received order from Ada Lovelace in blue' });
    expect(steps[6]).toMatchObject({ action: 'screenshot', ok: true, screenshotUrl: 'https://example.test/shot.png' });
    expect(shots.at(-1)!.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(out.result!.content).toBe('untrusted-web-page');
    expect(site.hits).toContain('POST /echo');
  });

  it('reads the whole page, bounded', async () => {
    const out = await run([{ action: 'navigate', url: `${site.origin}/form` }, { action: 'read' }]);
    expect(out.ok).toBe(true);
    const read = out.result!.steps[1] as { text: string };
    expect(read.text).toEqual(expect.stringMatching(/^Order\n/));
    expect(read.text.length).toBeLessThanOrEqual(4000);
  });

  it('refuses a private address reached by a sub-request, and the page still loads', async () => {
    const out = await run([{ action: 'navigate', url: `${site.origin}/private-subrequest` }, { action: 'read' }]);
    expect(out.ok).toBe(true);
    const refused = out.result!.refused;
    expect(refused).toEqual(
      expect.arrayContaining([
        { target: 'http://10.0.0.7/pixel.png', reason: expect.stringMatching(/non-public address \(10\.0\.0\.7\)/) },
        {
          target: 'http://169.254.169.254/latest/meta-data/',
          reason: expect.stringMatching(/non-public address \(169\.254\.169\.254\)/),
        },
      ]),
    );
  });

  it('refuses a private address reached by a redirect (the proxy sees what interception does not)', async () => {
    const out = await run([{ action: 'navigate', url: `${site.origin}/to-private` }, { action: 'read' }]);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.error).toEqual(
      expect.stringMatching(
        /^Step 1 \(navigate\) failed: .*refused: http:\/\/10\.0\.0\.7\/admin \(.*non-public address/,
      ),
    );
    expect(out.result!.steps).toHaveLength(1);
  });

  it('refuses a redirect to a host that is not allowed', async () => {
    const out = await run([{ action: 'navigate', url: `${site.origin}/to-other-host` }]);
    expect(out.ok).toBe(false);
    expect(out.result!.refused).toEqual([
      { target: 'http://not-allowed.test/x', reason: 'The host not-allowed.test is not allowed for this tool' },
    ]);
  });

  it('refuses file: URLs, hosts outside the list, and plain loopback without the local switch', async () => {
    const file = await run([{ action: 'navigate', url: 'file:///etc/passwd' }]);
    expect(file).toMatchObject({
      ok: false,
      error: expect.stringMatching(/Only https URLs are allowed \(file refused\)/),
    });
    const other = await run([{ action: 'navigate', url: `${site.origin}/form` }], { allowedHosts: ['example.com'] });
    expect(other).toMatchObject({ ok: false, error: expect.stringMatching(/The host 127\.0\.0\.1 is not allowed/) });
    vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '0');
    try {
      const asDeployed = await run([{ action: 'navigate', url: `${site.origin}/form` }]);
      expect(asDeployed).toMatchObject({ ok: false, error: expect.stringMatching(/Only https URLs are allowed/) });
      const https = await run([{ action: 'navigate', url: `https://127.0.0.1:${site.port}/form` }]);
      expect(https).toMatchObject({ ok: false, error: expect.stringMatching(/non-public address \(127\.0\.0\.1\)/) });
    } finally {
      vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');
    }
    expect(site.hits).toEqual([]);
  });

  it('refuses popups, downloads and file uploads', async () => {
    const out = await run([
      { action: 'navigate', url: `${site.origin}/form` },
      { action: 'click', text: 'Open in new window' },
      { action: 'click', text: 'Get the file' },
      { action: 'click', selector: '#upload' },
      { action: 'read', selector: 'h1' },
    ]);
    const reasons = out.result!.refused.map((r) => r.reason);
    expect(reasons).toEqual(
      expect.arrayContaining([
        'Popups and new windows are refused',
        'Downloads are refused',
        'File uploads are refused',
      ]),
    );
    // The download's request is made (a browser learns it is one from the answer); nothing is kept.
    expect(out.result!.steps.at(-1)).toEqual({ action: 'read', ok: true, text: 'Order' });
  });

  it('keeps nothing between calls: a cookie set in one call is gone in the next', async () => {
    await run([{ action: 'navigate', url: `${site.origin}/set-cookie` }]);
    const out = await run([
      { action: 'navigate', url: `${site.origin}/show-cookie` },
      { action: 'read', selector: '#c' },
    ]);
    expect(out.result!.steps[1]).toMatchObject({ text: 'cookie:none' });
  });

  it('stops at the tool time limit and says how far it got', async () => {
    const started = Date.now();
    const out = await run(
      [
        { action: 'navigate', url: `${site.origin}/form` },
        { action: 'navigate', url: `${site.origin}/never` },
        { action: 'read' },
      ],
      { timeoutSeconds: 3 },
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.error).toEqual(expect.stringMatching(/3 seconds|Timeout 3\d{3}ms|timeout/i));
    expect(out.result!.steps[0]).toMatchObject({ ok: true });
  });

  it('a failed step stops the call with the step named', async () => {
    const out = await run(
      [{ action: 'navigate', url: `${site.origin}/form` }, { action: 'click', selector: '#nope' }, { action: 'read' }],
      { timeoutSeconds: 10 },
    );
    expect(out).toMatchObject({ ok: false, error: expect.stringMatching(/^Step 2 \(click\) failed: /) });
    expect(out.result!.steps).toHaveLength(2);
  });
});
