import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CreateTableCommand, type CreateTableCommandInput, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import sesLocal from 'aws-ses-v2-local';

// CommonJS built from ESM: its default export arrives as a property under tsx and vitest alike.
const startSes = ((sesLocal as unknown as { default?: typeof sesLocal }).default ?? sesLocal) as unknown as (config: {
  host: string;
  port: number;
}) => Promise<import('node:http').Server>;
import { bedrockHandler } from '../bedrock-stand-in.ts';
import { localClient, startDynamoDbLocal } from '../dynamodb-local.ts';
import { startS3VectorsStandIn } from '../s3-vectors-stand-in.ts';
import { startSsmStandIn, type SsmStandIn } from '../ssm-stand-in.ts';
import { startFront, type Upstream } from './aws-front.ts';
import { customResources, startCloudFormationResponses } from './custom-resources.ts';
import { scheduledEvent, QueuePollers } from './event-sources.ts';
import { FunctionHost, prepareRuntime } from './function-host.ts';
import { startFunctionUrl, startHttpApi } from './http-fronts.ts';
import { accessKeyFor, TemplateIam } from './iam-check.ts';
import { type Authorization, kmsViaSsm, type ServiceName, type WireRequest } from './iam-requests.ts';
import { ACCOUNT, REGION, type Json, StackTemplate, type TemplateFunction, templateFunctions } from './template.ts';

/** Each process's secret: paired with its access key in the S3 stand-in, which checks signatures. */
const secretFor = (fn: TemplateFunction) => `secret-${fn.id}`;

/** The service each front stands for, and the SDK's endpoint setting that points a client at it. */
const ENDPOINT_SETTINGS: Record<ServiceName, string> = {
  dynamodb: 'AWS_ENDPOINT_URL_DYNAMODB',
  s3: 'AWS_ENDPOINT_URL_S3',
  sqs: 'AWS_ENDPOINT_URL_SQS',
  ses: 'AWS_ENDPOINT_URL_SES',
  ssm: 'AWS_ENDPOINT_URL_SSM',
  'bedrock-runtime': 'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
  s3vectors: 'AWS_ENDPOINT_URL_S3VECTORS',
  lambda: 'AWS_ENDPOINT_URL_LAMBDA',
};

export interface DeployedStackOptions {
  /** Changes to the template before anything starts (a planted fault). */
  edit?: (t: StackTemplate) => void;
  /** Where the stand-ins keep files. */
  workDir: string;
}

/**
 * A synthesized stack stood up on this machine: the stand-ins built from its template (the table
 * from its key schema and indexes, the buckets, the queues with their redrive policies, the vector
 * bucket, a parameter store), a recording front per AWS service that checks every call against the
 * caller's role, and Lambda for every function of the template (its bundle in its own process, its
 * template environment), fed by the HTTP API's routes, the function URLs, the SQS event source
 * mappings, the schedule and Lambda Invoke.
 */
export async function startDeployedStack(assemblyDir: string, stackName: string, opts: DeployedStackOptions) {
  const t = new StackTemplate(assemblyDir, stackName);
  opts.edit?.(t);
  const functions = templateFunctions(t);
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
  };
  try {
    for (const [id] of t.ofType('AWS::KMS::Key')) t.physical.set(id, '0c6e1f2a-5b4d-4e3a-9f8e-7d6c5b4a3f21');
    const iam = new TemplateIam(t, functions);
    const [tableId, tableDef] = t.ofType('AWS::DynamoDB::Table')[0]!;
    const partitionKey = tableDef.Properties.KeySchema.find((k: Json) => k.KeyType === 'HASH').AttributeName;

    // The stand-ins.
    const dynamo = await startDynamoDbLocal();
    stops.push(dynamo.stop);
    const require = createRequire(import.meta.url);
    const S3rver = require('s3rver') as new (
      o: Record<string, unknown>,
    ) => {
      run(): Promise<{ port: number }>;
      close(): Promise<void>;
      httpServer?: { closeAllConnections(): void };
    };
    const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account') as {
      DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void };
    };
    for (const fn of functions) DUMMY_ACCOUNT.createKeyPair(accessKeyFor(fn), secretFor(fn));
    mkdirSync(join(opts.workDir, 's3'), { recursive: true });
    const buckets = t.ofType('AWS::S3::Bucket').map(([id]) => t.ref(id));
    const s3 = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: join(opts.workDir, 's3'),
      configureBuckets: buckets.map((name) => ({ name })),
    });
    const s3Port = (await s3.run()).port;
    stops.push(async () => {
      s3.httpServer?.closeAllConnections();
      await s3.close();
    });
    const sqsServer = await createSqsServer({ port: 0, hostname: '127.0.0.1', emulateQueueCreationLifecycle: false });
    stops.push(() => new Promise((r) => sqsServer.close(r)));
    const sqsUrl = `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`;
    const sesServer = await startSes({ host: '127.0.0.1', port: 0 });
    stops.push(() => new Promise((r) => sesServer.close(r)));
    const sesUrl = `http://127.0.0.1:${(sesServer.address() as AddressInfo).port}`;
    const ssm: SsmStandIn = await startSsmStandIn();
    stops.push(ssm.close);
    // In this process behind its HTTP/2 front: the SDK's Bedrock client speaks HTTP/2 only.
    const bedrock = bedrockHandler();
    const vectorBuckets = t
      .ofType('AWS::S3Vectors::VectorBucket')
      .map(([, r]) => t.resolve(r.Properties.VectorBucketName) as string);
    const vectors = await startS3VectorsStandIn(vectorBuckets);
    stops.push(vectors.close);

    // Lambda.
    const hosts = new Map<string, FunctionHost>();
    const hostOf = (nameOrArn: string) => {
      const name = nameOrArn.split(':').pop()!;
      const host = hosts.get(name);
      if (!host) throw new Error(`No function ${nameOrArn} in the template`);
      return host;
    };
    const lambdaUpstream: Upstream = {
      async handle(req: WireRequest, res) {
        const name = decodeURIComponent(/\/functions\/([^/]+)\//.exec(req.url)?.[1] ?? '');
        const out = await hostOf(name).invoke(JSON.parse(req.body.toString('utf8') || 'null'));
        res.writeHead(200, {
          'content-type': 'application/json',
          'x-amz-executed-version': '$LATEST',
          ...(out.ok ? {} : { 'x-amz-function-error': 'Unhandled' }),
        });
        res.end(JSON.stringify(out.payload));
      },
    };

    // SSM encrypts and decrypts a SecureString with a customer key as the caller, so KMS authorizes it too.
    const impliedBySsm = async (req: WireRequest): Promise<Authorization[]> => {
      const op = String(req.headers['x-amz-target'] ?? '')
        .split('.')
        .pop();
      const body = JSON.parse(req.body.toString('utf8') || '{}');
      if (op === 'PutParameter')
        return body.Type === 'SecureString' && body.KeyId ? [kmsViaSsm('Encrypt', body.KeyId, body.Name)] : [];
      if (!body.WithDecryption) return [];
      const names: string[] = body.Names ?? (body.Name ? [body.Name] : []);
      if (body.Path) {
        const prefix = body.Path.endsWith('/') ? body.Path : `${body.Path}/`;
        names.push(...(await ssm.names()).filter((n) => n.startsWith(prefix)));
      }
      return names.flatMap((n) => {
        const key = ssm.keyOf(n);
        return key ? [kmsViaSsm('Decrypt', key, n)] : [];
      });
    };
    const upstreams: Record<ServiceName, Upstream> = {
      dynamodb: { url: dynamo.endpoint },
      s3: { url: `http://127.0.0.1:${s3Port}` },
      sqs: { url: sqsUrl },
      ses: { url: sesUrl },
      ssm: { url: ssm.endpoint },
      'bedrock-runtime': { handle: (req, res) => bedrock.handle(req, res as ServerResponse) },
      s3vectors: { url: vectors.endpoint },
      lambda: lambdaUpstream,
    };
    const fronts = {} as Record<ServiceName, string>;
    for (const service of Object.keys(upstreams) as ServiceName[]) {
      const front = await startFront(service, upstreams[service], {
        iam,
        partitionKey,
        implied: { ssm: impliedBySsm },
      });
      stops.push(front.close);
      fronts[service] = front.url;
    }

    // The resources, from the template.
    const queues = t.ofType('AWS::SQS::Queue');
    for (const [id] of queues) t.physical.set(id, `${fronts.sqs}/${ACCOUNT}/${t.queueName(id)}`);
    const admin = new SQSClient({
      endpoint: sqsUrl,
      region: REGION,
      credentials: { accessKeyId: 'a', secretAccessKey: 'a' },
    });
    // Dead-letter queues first: a redrive policy names an existing queue.
    const ordered = [...queues].sort(
      ([, a], [, b]) => Number(!!a.Properties?.RedrivePolicy) - Number(!!b.Properties?.RedrivePolicy),
    );
    for (const [id, q] of ordered) {
      const p = t.resolve(q.Properties ?? {});
      const attrs: Record<string, string> = {};
      for (const k of [
        'VisibilityTimeout',
        'MessageRetentionPeriod',
        'DelaySeconds',
        'FifoQueue',
        'ContentBasedDeduplication',
        'DeduplicationScope',
        'FifoThroughputLimit',
      ])
        if (p[k] !== undefined) attrs[k] = String(p[k]);
      if (p.RedrivePolicy) attrs.RedrivePolicy = JSON.stringify(p.RedrivePolicy);
      await admin.send(new CreateQueueCommand({ QueueName: t.queueName(id), Attributes: attrs }));
    }
    const table = t.resolve(tableDef.Properties);
    const input: CreateTableCommandInput = {
      TableName: t.ref(tableId),
      AttributeDefinitions: table.AttributeDefinitions,
      KeySchema: table.KeySchema,
      BillingMode: table.BillingMode,
      GlobalSecondaryIndexes: table.GlobalSecondaryIndexes,
      LocalSecondaryIndexes: table.LocalSecondaryIndexes,
    };
    const ddbAdmin = localClient(dynamo.endpoint);
    await ddbAdmin.send(new CreateTableCommand(input));
    if (table.TimeToLiveSpecification)
      await ddbAdmin.send(
        new UpdateTimeToLiveCommand({
          TableName: input.TableName,
          TimeToLiveSpecification: table.TimeToLiveSpecification,
        }),
      );

    const api = await startHttpApi(t, hostOf);
    stops.push(api.close);
    for (const [id] of t.ofType('AWS::ApiGatewayV2::Api')) t.physical.set(`${id}.ApiEndpoint`, api.url);

    const cfn = await startCloudFormationResponses(opts.workDir);
    stops.push(cfn.close);
    const dir = join(opts.workDir, 'runtime');
    mkdirSync(dir, { recursive: true });
    const runtime = await prepareRuntime(dir);
    const endpoints = Object.fromEntries(
      Object.entries(ENDPOINT_SETTINGS).map(([s, v]) => [v, fronts[s as ServiceName]]),
    );
    for (const fn of functions) {
      const env = () => {
        const resolved = t.resolve(fn.environment) as Record<string, string>;
        return {
          ...Object.fromEntries(Object.entries(resolved).map(([k, v]) => [k, String(v)])),
          AWS_LAMBDA_FUNCTION_NAME: fn.name,
          AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
          AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
          AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.name}`,
          AWS_LAMBDA_LOG_STREAM_NAME: `${new Date().toISOString().slice(0, 10)}/[$LATEST]${fn.id}`,
          AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
          AWS_REGION: REGION,
          AWS_DEFAULT_REGION: REGION,
          AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
          _HANDLER: fn.handler,
          LAMBDA_TASK_ROOT: fn.codeDir,
          LAMBDA_RUNTIME_DIR: dir,
          AWS_ACCESS_KEY_ID: accessKeyFor(fn),
          AWS_SECRET_ACCESS_KEY: secretFor(fn),
          AWS_SESSION_TOKEN: `session-${fn.id}`,
          TZ: ':UTC',
          LANG: 'en_US.UTF-8',
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          NODE_PATH: runtime.runtimeModules,
          NODE_EXTRA_CA_CERTS: cfn.caFile,
          // Lambda runs Node 24; the SDK's warning about this machine's Node 20 is not the function's.
          AWS_SDK_JS_SUPPRESS_NODE_DEPRECATION_WARNING: '1',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          ...endpoints,
        };
      };
      hosts.set(fn.name, new FunctionHost(fn, runtime.bootstrap, env));
    }
    stops.push(async () => {
      for (const h of hosts.values()) h.stop();
    });
    const urls = new Map<string, string>();
    for (const [id, u] of t.ofType('AWS::Lambda::Url')) {
      const host = hostOf(t.resolve(u.Properties.TargetFunctionArn));
      const front = await startFunctionUrl(host);
      stops.push(front.close);
      t.physical.set(`${id}.FunctionUrl`, `${front.url}/`);
      urls.set(host.fn.name, front.url);
    }

    const clientFor = (host: FunctionHost) =>
      new SQSClient({
        endpoint: fronts.sqs,
        region: REGION,
        credentials: { accessKeyId: accessKeyFor(host.fn), secretAccessKey: secretFor(host.fn) },
      });
    const pollers = new QueuePollers(t, hostOf, clientFor, admin);
    const schedules = t.ofType('AWS::Events::Rule').flatMap(([id, r]) =>
      (r.Properties.Targets ?? []).map((target: Json) => ({
        ruleArn: `arn:aws:events:${REGION}:${ACCOUNT}:rule/${t.generatedName(id)}`,
        host: hostOf(t.resolve(target.Arn)),
      })),
    );

    return {
      template: t,
      functions,
      iam,
      hosts,
      hostOf,
      /** A function by the name its group or worker has in groups.ts (`tenants`, `email-worker`). */
      byName: (name: string) => {
        const id = `Fn${name.replace(/-/g, '')}`;
        const fn = functions.find((f) => f.id.startsWith(id) && /^[0-9A-F]{8}$/.test(f.id.slice(id.length)));
        if (!fn) throw new Error(`No function ${name}`);
        return hosts.get(fn.name)!;
      },
      apiUrl: api.url,
      functionUrls: urls,
      fronts,
      endpoints: { dynamodb: dynamo.endpoint, sqs: sqsUrl, ses: sesUrl, ssm: ssm.endpoint },
      bedrock,
      pollers,
      /** What CloudFormation does after creating the resources: each custom resource's Create, answered by its provider. */
      async createCustomResources() {
        const out = [];
        for (const [id, r] of customResources(t))
          out.push(await cfn.create(t, id, hostOf(t.resolve(r.Properties.ServiceToken))));
        return out;
      },
      /** Runs the schedule once: each rule's target gets its scheduled event. */
      async tick() {
        return Promise.all(schedules.map((s) => s.host.invoke(scheduledEvent(s.ruleArn))));
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

export type DeployedStack = Awaited<ReturnType<typeof startDeployedStack>>;
