import { App } from 'aws-cdk-lib';
import { PlatformStack } from '#lib/platform-stack.ts';
import { readSettings } from '#lib/settings.ts';
import { tempDir } from '#test/support/temp-dir.ts';

export const STACK_NAME = 'saas-test';

/**
 * The cloud assembly `cdk synth` writes, with every function bundled by esbuild as a deploy ships it
 * (the same App and stack as bin/app.ts, stage `test`), synthesized in this process: offline, about a
 * minute and a half of esbuild on a 2-core machine.
 */
export function synthBundled(): string {
  const outdir = tempDir('cdk.out-deployed-');
  const app = new App({
    outdir,
    // The CLI's default: each resource names its asset folder (`aws:asset:path`), which the tier runs.
    context: {
      appName: 'saas',
      stage: 'test',
      corsOrigins: 'https://app.example.test',
      'aws:cdk:enable-asset-metadata': true,
    },
  });
  const settings = readSettings(app.node);
  new PlatformStack(app, STACK_NAME, { settings, description: `${settings.appName} platform API (test)` });
  app.synth();
  return outdir;
}
