import { prepareBrowser } from './browser.ts';

/** The e2e tier's browser tests run in parallel: the packaged Chromium is unpacked once, before them. */
export default async function setup() {
  await prepareBrowser();
}
