import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** A system Chromium when the machine has one (faster to start); none is required. */
const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
const SYSTEM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** The packaged build has no GPU stack of its own: software GL, as the package sets it. */
const PACKAGED_ARGS = ['--use-gl=angle', '--use-angle=swiftshader', '--disable-dev-shm-usage'];

/**
 * A headless Chromium for browser tests with no setup step: the system's if installed, else the
 * one `@sparticuz/chromium` ships inside the npm package (unpacked to the temp folder on first use,
 * nothing downloaded). playwright-core itself never downloads a browser.
 */
export async function launchBrowser(): Promise<Browser> {
  const system = SYSTEM_CHROMIUM.find((path) => existsSync(path));
  if (system) return chromium.launch({ executablePath: system, args: SYSTEM_ARGS, timeout: 60_000 });
  const { default: packaged } = await import('@sparticuz/chromium');
  // Not the package's own flags: they suit Lambda, not a test (--single-process, which Playwright does
  // not support and is suspected in a CI run whose page stopped answering; web security turned off).
  return chromium.launch({ executablePath: await packaged.executablePath(), args: [...SYSTEM_ARGS, ...PACKAGED_ARGS], timeout: 60_000 });
}
