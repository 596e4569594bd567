import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { environmentFor, grantAccess, type AccessSpec, type PlatformResources } from './access.ts';
import { bundlingFor } from './bundling.ts';

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const entryOf = (name: string) => fileURLToPath(new URL(`../functions/${name}/index.ts`, import.meta.url));

/** Construct id of a function: `Fn-<group or worker>`. */
const functionId = (name: string) => `Fn-${name}`;

/** The newest Node.js runtime aws-cdk-lib knows (cdk-nag's L1 / LambdaLatestVersion check the same list). */
const RUNTIME = Runtime.NODEJS_24_X;
export const LOG_RETENTION = RetentionDays.ONE_MONTH;

export interface AppFunctionOptions {
  description: string;
  access: AccessSpec;
  defaultTimeoutSeconds: number;
  /** Defaults to `functions/<name>/index.ts`. */
  entry?: string;
  /** The exported handler; `handler` unless said (`streamHandler` for a streaming front door). */
  handler?: string;
  /** Whose bundling (lazy packages, copied assets) the function shares; its own name unless said. */
  bundlingOf?: string;
}

/**
 * One Lambda: `functions/<name>/index.ts` bundled with BUNDLING, its own log group, its grants,
 * X-Ray active tracing. Its role may write only to its own log group (no AWSLambdaBasicExecutionRole,
 * whose logs:* actions cover every log group of the account).
 */
export function appFunction(
  scope: Construct,
  name: string,
  opts: AppFunctionOptions,
  res: PlatformResources,
): NodejsFunction {
  const entry = opts.entry ?? entryOf(name);
  if (!existsSync(entry)) throw new Error(`Function ${name} has no entry file ${entry}`);
  const logGroup = new LogGroup(scope, `${functionId(name)}-Logs`, {
    retention: LOG_RETENTION,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const role = new Role(scope, `${functionId(name)}-Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  logGroup.grantWrite(role);
  const fn = new NodejsFunction(scope, functionId(name), {
    description: `${res.settings.appName}-${res.settings.stage} ${name}: ${opts.description}`,
    entry,
    handler: opts.handler ?? 'handler',
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
    runtime: RUNTIME,
    architecture: Architecture.ARM_64,
    memorySize: opts.access.memoryMb ?? 512,
    timeout: Duration.seconds(opts.access.timeoutSeconds ?? opts.defaultTimeoutSeconds),
    bundling: bundlingFor(opts.bundlingOf ?? name),
    awsSdkConnectionReuse: false,
    logGroup,
    role,
    tracing: Tracing.ACTIVE,
    environment: environmentFor(opts.access, res),
  });
  grantAccess(fn, opts.access, res);
  return fn;
}
