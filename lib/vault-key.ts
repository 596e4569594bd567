import { RemovalPolicy } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import type { StackSettings } from './settings.ts';

/** The stack's KMS key for vault SecureStrings (`/<app>/<stage>/vault/...`); granted per function. */
export const vaultKey = (scope: Construct, settings: StackSettings) =>
  new Key(scope, 'VaultKey', {
    description: `${settings.appName}-${settings.stage} secrets vault (SSM SecureString)`,
    alias: `${settings.appName}/${settings.stage}/vault`,
    enableKeyRotation: true,
    removalPolicy: settings.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
