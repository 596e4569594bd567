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

const systemChromium = () => SYSTEM_CHROMIUM.find((path) => existsSync(path));

/**
 * The path of the Chromium that `@sparticuz/chromium` ships inside the npm package, unpacked to the
 * temp folder on first use (nothing downloaded). The package answers "already unpacked" as soon as
 * the binary's file exists, even while another process is still writing it and the fonts, so the
 * e2e tier unpacks it once in its global setup (browser-global-setup.ts), before test files run in
 * parallel.
 */
async function packagedChromium(): Promise<string> {
  const { default: packaged } = await import('@sparticuz/chromium');
  return packaged.executablePath();
}

/**
 * A headless Chromium for browser tests with no setup step: the system's if installed, else the
 * packaged one. playwright-core itself never downloads a browser.
 */
export async function launchBrowser(): Promise<Browser> {
  const system = systemChromium();
  if (system) return chromium.launch({ executablePath: system, args: SYSTEM_ARGS, timeout: 60_000 });
  // Not the package's own flags: they suit Lambda, not a test (--single-process, which Playwright does
  // not support; web security turned off).
  return chromium.launch({
    executablePath: await packagedChromium(),
    args: [...SYSTEM_ARGS, ...PACKAGED_ARGS],
    timeout: 60_000,
  });
}

/** Unpacks the packaged Chromium once, when the machine has no Chromium of its own. */
export async function prepareBrowser(): Promise<void> {
  if (!systemChromium()) await packagedChromium();
}
