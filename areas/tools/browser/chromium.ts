import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';

/**
 * Headless Chromium from `@sparticuz/chromium` (built for Lambda; unpacked to /tmp on first use).
 * Not the package's own flag list: `--single-process` breaks Playwright's contexts and
 * `--disable-web-security` would drop the same-origin policy a page's scripts run under. Every
 * connection goes through the guard proxy, loopback included (`<-loopback>` removes Chromium's
 * implicit bypass); WebRTC may not open UDP outside it.
 */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--no-zygote',
  '--disable-gpu',
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-features=DnsOverHttps',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--proxy-bypass-list=<-loopback>',
];

/** Deployed, the package's compressed binaries sit beside the bundle (lib/bundling.ts); locally, inside the package. */
const binDir = () => {
  const root = process.env.LAMBDA_TASK_ROOT;
  const dir = root ? join(root, 'chromium-bin') : undefined;
  return dir && existsSync(dir) ? dir : undefined;
};

export async function launchChromium(proxyServer: string): Promise<Browser> {
  const [{ default: packaged }, { chromium }] = await Promise.all([
    import('@sparticuz/chromium'),
    import('playwright-core'),
  ]);
  const executablePath = await packaged.executablePath(binDir());
  return chromium.launch({
    executablePath,
    args: [...ARGS, `--proxy-server=${proxyServer}`],
    timeout: 20_000,
  });
}
