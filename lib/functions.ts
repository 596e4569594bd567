import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { environmentFor, grantAccess, type AccessSpec, type PlatformResources } from './access.ts';
import { bundlingFor } from './bundling.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const entryOf = (name: string) => fileURLToPath(new URL(`../functions/${name}/index.ts`, import.meta.url));

/** Construct id of a function: `Fn-<group or worker>`. */
export const functionId = (name: string) => `Fn-${name}`;

export const RUNTIME = Runtime.NODEJS_22_X;
export const LOG_RETENTION = RetentionDays.ONE_MONTH;

export interface AppFunctionOptions {
  description: string;
  access: AccessSpec;
  defaultTimeoutSeconds: number;
}

/** One Lambda: `functions/<name>/index.ts` bundled with BUNDLING, its own log group, its grants. */
export function appFunction(scope: Construct, name: string, opts: AppFunctionOptions, res: PlatformResources): NodejsFunction {
  const entry = entryOf(name);
  if (!existsSync(entry)) throw new Error(`Function ${name} has no entry file ${entry}`);
  const logGroup = new LogGroup(scope, `${functionId(name)}-Logs`, {
    retention: LOG_RETENTION,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const fn = new NodejsFunction(scope, functionId(name), {
    description: `${res.settings.appName}-${res.settings.stage} ${name}: ${opts.description}`,
    entry,
    handler: 'handler',
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
    runtime: RUNTIME,
    architecture: Architecture.ARM_64,
    memorySize: opts.access.memoryMb ?? 512,
    timeout: Duration.seconds(opts.access.timeoutSeconds ?? opts.defaultTimeoutSeconds),
    bundling: bundlingFor(name),
    awsSdkConnectionReuse: false,
    logGroup,
    environment: environmentFor(opts.access, res),
  });
  grantAccess(fn, opts.access, res);
  return fn;
}
