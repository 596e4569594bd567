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

/**
 * A headless Chromium for browser tests with no setup step: the system's if installed, else the
 * one `@sparticuz/chromium` ships inside the npm package (unpacked to the temp folder on first use,
 * nothing downloaded). playwright-core itself never downloads a browser.
 */
export async function launchBrowser(): Promise<Browser> {
  const system = SYSTEM_CHROMIUM.find((path) => existsSync(path));
  if (system) return chromium.launch({ executablePath: system, args: SYSTEM_ARGS, timeout: 60_000 });
  const { default: packaged } = await import('@sparticuz/chromium');
  return chromium.launch({ executablePath: await packaged.executablePath(), args: packaged.args, headless: true, timeout: 60_000 });
}
