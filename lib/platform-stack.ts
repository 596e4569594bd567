import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { FunctionUrlAuthType, HttpMethod, InvokeMode } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { batchingOf } from '#shared/queue/batching.ts';
import {
  API_GROUPS,
  INVOKED,
  SCHEDULED,
  WORKERS,
  type GroupName,
  type GroupSpec,
  type WorkerName,
} from '#shared/routes/groups.ts';
import { deployedRoutes } from '#api/routes.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import type { PlatformResources } from './access.ts';
import { DataStores } from './data.ts';
import { appFunction, entryOf } from './functions.ts';
import { CORS_ALLOW_HEADERS, PlatformHttpApi } from './http-api.ts';
import { LlmCatalogSeed } from './llm-catalog-seed.ts';
import { Monitoring } from './monitoring.ts';
import { acknowledgeNagFindings } from './nag-acknowledgements.ts';
import { QUEUE_NAMES, WORKER_TIMEOUT_SECONDS, WorkQueues } from './queues.ts';
import type { StackSettings } from './settings.ts';
import { vaultKey } from './vault-key.ts';

export const API_TIMEOUT_SECONDS = 10;
/** A streamed answer (a model's) may run for minutes; the function URL allows up to the function's timeout. */
const STREAM_TIMEOUT_SECONDS = 300;

export interface PlatformStackProps extends StackProps {
  settings: StackSettings;
  /** The routes to deploy; the route table's non-local routes by default. */
  routes?: readonly RouteDef[];
}

/** Groups that get a function: every group with a deployed route. */
const deployedGroups = (routes: readonly RouteDef[]): GroupName[] => [...new Set(routes.map((r) => r.group))];

/** Groups that also get a streaming front door: every group with a deployed `stream` route. */
const streamingGroups = (routes: readonly RouteDef[]): GroupName[] => [
  ...new Set(routes.filter((r) => r.transport === 'stream').map((r) => r.group)),
];

/** Name of a group's streaming front door function (`system-stream`). */
const streamFunctionName = (group: string) => `${group}-stream`;

/**
 * The whole platform in one stack: an HTTP API whose routes come from the route table, one
 * function per endpoint group plus the `$default` fallback, queue workers, the table, buckets,
 * queues and the vault key, each function granted only what its spec in groups.ts names.
 */
export class PlatformStack extends Stack {
  /** Every function by group or worker name (`catalog`, `fallback`, `email-worker`, ...). */
  readonly functions = new Map<string, NodejsFunction>();
  readonly httpApi: PlatformHttpApi;
  readonly monitoring: Monitoring;
  /** The function URL of each group's streaming front door. */
  readonly streamUrls = new Map<string, string>();
  /** What every function is built from (settings, data stores, queues, vault key). */
  readonly resources: PlatformResources;
  /** The stage's Bedrock models, written to the model catalog on deploy when absent. */
  readonly llmCatalogSeed: LlmCatalogSeed;

  constructor(scope: Construct, id: string, props: PlatformStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const routes = props.routes ?? deployedRoutes;

    const data = new DataStores(this, 'Data', settings);
    const queues = new WorkQueues(this, 'Queues');
    // The API comes first so functions can link to its URL; its routes are added once they exist.
    this.httpApi = new PlatformHttpApi(this, 'Http', settings);
    const res: PlatformResources = {
      settings,
      data,
      queues,
      vaultKey: vaultKey(this, settings),
      publicBaseUrl: settings.publicBaseUrl ?? this.httpApi.endpoint,
    };
    this.resources = res;
    // Invoked functions first: their callers' environments name them and their grants invoke them.
    res.invoked = {};
    for (const [name, spec] of Object.entries(INVOKED)) {
      const fn = appFunction(
        this,
        name,
        { description: spec.description, access: spec, defaultTimeoutSeconds: spec.timeoutSeconds },
        res,
      );
      res.invoked[name as keyof typeof INVOKED] = fn;
      this.functions.set(name, fn);
    }

    for (const group of ['fallback' as const, ...deployedGroups(routes).filter((g) => g !== 'fallback')]) {
      const spec = API_GROUPS[group];
      const verifiesTokens = group !== 'fallback';
      this.functions.set(
        group,
        appFunction(
          this,
          group,
          {
            description: spec.description,
            access: { ...spec, verifiesTokens },
            defaultTimeoutSeconds: API_TIMEOUT_SECONDS,
          },
          res,
        ),
      );
    }
    // Stream routes are on the HTTP API too (their events then arrive at once); the group's second
    // function, same bundle and grants, serves them through a function URL in response-stream mode.
    for (const group of streamingGroups(routes)) {
      const spec = API_GROUPS[group];
      const name = streamFunctionName(group);
      const fn = appFunction(
        this,
        name,
        {
          description: `${spec.description} (streaming front door)`,
          access: { ...spec, verifiesTokens: true },
          defaultTimeoutSeconds: STREAM_TIMEOUT_SECONDS,
          entry: entryOf(group),
          handler: 'streamHandler',
          bundlingOf: group,
        },
        res,
      );
      const url = fn.addFunctionUrl({
        // The function authenticates every request itself (the same middleware chain as the HTTP API);
        // IAM auth would need SigV4-signing clients (docs/decisions/platform.md, "Streaming").
        authType: FunctionUrlAuthType.NONE,
        invokeMode: InvokeMode.RESPONSE_STREAM,
        cors: {
          allowedOrigins: (spec as GroupSpec).anyOrigin ? ['*'] : settings.corsOrigins,
          allowedHeaders: [...CORS_ALLOW_HEADERS],
          allowedMethods: [HttpMethod.ALL],
          exposedHeaders: ['retry-after'],
        },
      });
      this.functions.set(name, fn);
      this.streamUrls.set(group, url.url);
      new CfnOutput(this, `StreamUrl-${group}`, {
        value: url.url,
        description: `Streaming front door of the ${group} group (its stream routes, events as they are produced)`,
      });
    }
    // The widget's embed snippet points its calls at the conversations front door (any origin).
    const widgetCalls = this.streamUrls.get('conversations');
    if (widgetCalls) this.functions.get('agents')?.addEnvironment('WIDGET_API_BASE', widgetCalls);
    for (const [name, spec] of Object.entries(WORKERS)) {
      // The vault's sync job runs in the worker that holds vault access; it imports from vault-sources.
      const access = { ...spec, readsVaultSources: 'vault' in spec && spec.vault };
      const fn = appFunction(
        this,
        name,
        { description: spec.description, access, defaultTimeoutSeconds: WORKER_TIMEOUT_SECONDS },
        res,
      );
      const { batchSize, windowSeconds } = batchingOf(name as WorkerName);
      fn.addEventSource(
        new SqsEventSource(queues.queues[spec.queue], {
          batchSize,
          ...(windowSeconds ? { maxBatchingWindow: Duration.seconds(windowSeconds) } : {}),
          reportBatchItemFailures: true,
        }),
      );
      this.functions.set(name, fn);
    }

    for (const [name, spec] of Object.entries(SCHEDULED)) {
      const fn = appFunction(
        this,
        name,
        { description: spec.description, access: spec, defaultTimeoutSeconds: 60 },
        res,
      );
      // No retry of a missed minute: the next run finds whatever is still due.
      new Rule(this, `${name}-Schedule`, {
        description: `${spec.description} (${name})`,
        schedule: Schedule.rate(Duration.minutes(spec.everyMinutes)),
        targets: [new LambdaFunction(fn, { retryAttempts: 0 })],
      });
      this.functions.set(name, fn);
    }

    this.httpApi.addRoutes(routes, this.functions, this.functions.get('fallback')!);
    this.llmCatalogSeed = new LlmCatalogSeed(this, 'LlmCatalogSeed', {
      table: data.table,
      bedrockModels: settings.bedrockModels,
    });
    this.monitoring = new Monitoring(this, 'Monitoring', {
      settings,
      api: this.httpApi.api,
      functions: this.functions,
      queues,
      table: data.table,
    });
    acknowledgeNagFindings(this, { settings, data, queues, httpApi: this.httpApi, monitoring: this.monitoring });

    new CfnOutput(this, 'TableName', { value: data.table.tableName });
    new CfnOutput(this, 'MediaBucketName', { value: data.media.bucketName });
    new CfnOutput(this, 'InvoiceBucketName', { value: data.invoices.bucketName });
    new CfnOutput(this, 'KnowledgeVectorBucketName', { value: data.knowledgeVectors.vectorBucketName! });
    for (const q of QUEUE_NAMES) {
      new CfnOutput(this, `${q[0]!.toUpperCase()}${q.slice(1)}QueueUrl`, { value: queues.queues[q].queueUrl });
    }
  }
}
