import { App } from 'aws-cdk-lib';
import { PlatformStack } from '#lib/platform-stack.ts';
import { readSettings } from '#lib/settings.ts';

// `npx cdk synth|deploy -c stage=prod [-c appName=saas]`; env-agnostic unless the CLI knows the account.
const app = new App();
const settings = readSettings(app.node);

new PlatformStack(app, `${settings.appName}-${settings.stage}`, {
  settings,
  description: `${settings.appName} platform API (${settings.stage})`,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  tags: { app: settings.appName, stage: settings.stage },
});
