import { beforeAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import {
  BUNDLING,
  bundlingFor,
  esbuildOptionsFor,
  LAZY_EVERYWHERE,
  LAZY_PACKAGES,
  lazyPackagesOf,
  NODE_TARGET,
  REQUIRE_BANNER,
} from '#lib/bundling.ts';
import { TABLE_DESIGN } from '#shared/data/table-design.ts';
import { API_GROUPS, INVOKED, SCHEDULED, WORKERS } from '#shared/routes/groups.ts';
import { QUEUE_NAMES } from '#lib/queues.ts';
import { ORDERED_QUEUES } from '#shared/queue/ordering.ts';
import { deployedRoutes } from '#api/routes.ts';
import { flat, groupOfFn, synthPlatform, targetId, type Json } from './synth.ts';

let s: ReturnType<typeof synthPlatform>;
beforeAll(() => {
  s = synthPlatform();
});

const fn = (name: string): Json => s.resources[s.fnIds.get(name)!].Properties;

describe('table', () => {
  it('is the table design: string keys, the two list GSIs projecting ALL and the by-id GSI keys only, on-demand, PITR, TTL, encrypted', () => {
    const tables = s.ofType('AWS::DynamoDB::Table');
    expect(tables.length).toBe(1);
    const t: Json = tables[0]![1].Properties;
    expect(t.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(t.BillingMode).toBe('PAY_PER_REQUEST');
    expect(t.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(t.TimeToLiveSpecification).toEqual({ AttributeName: TABLE_DESIGN.ttlAttribute, Enabled: true });
    expect(t.SSESpecification).toEqual({ SSEEnabled: true });
    expect(t.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'gsi1',
        KeySchema: [
          { AttributeName: 'gsi1pk', KeyType: 'HASH' },
          { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
      {
        IndexName: 'gsi2',
        KeySchema: [
          { AttributeName: 'gsi2pk', KeyType: 'HASH' },
          { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
      {
        IndexName: 'byId',
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ]);
    for (const attr of t.AttributeDefinitions) expect(attr.AttributeType).toBe('S');
    expect(t.AttributeDefinitions.map((a: Json) => a.AttributeName).sort()).toEqual([
      'gsi1pk',
      'gsi1sk',
      'gsi2pk',
      'gsi2sk',
      'id',
      'pk',
      'sk',
    ]);
    // Not prod: removable with the stack.
    expect(tables[0]![1].DeletionPolicy).toBe('Delete');
  });
});

describe('buckets', () => {
  it('block public access, are encrypted and deny any request without TLS', () => {
    const buckets = s.ofType('AWS::S3::Bucket');
    expect(buckets.length).toBe(3);
    const policies = s.ofType('AWS::S3::BucketPolicy');
    for (const [id, b] of buckets) {
      expect(b.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(b.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault).toEqual({
        SSEAlgorithm: 'AES256',
      });
      const policy = policies.find(([, p]) => targetId(p.Properties.Bucket) === id);
      expect(policy, id).toBeDefined();
      expect(policy![1].Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Action: 's3:*',
          Principal: { AWS: '*' },
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    }
  });

  it('log every access to media and invoices to the access-log bucket, kept for 90 days', () => {
    const logs = s.ofType('AWS::S3::Bucket').find(([id]) => id.startsWith('DataAccessLogs'))!;
    expect(logs[1].Properties.LifecycleConfiguration.Rules[0]).toMatchObject({
      ExpirationInDays: 90,
      Status: 'Enabled',
    });
    // ACLs stay disabled: log delivery is allowed by the log bucket's policy.
    expect(logs[1].Properties.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
    const policy = s.ofType('AWS::S3::BucketPolicy').find(([, p]) => targetId(p.Properties.Bucket) === logs[0])![1];
    expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Action: 's3:PutObject',
        Principal: { Service: 'logging.s3.amazonaws.com' },
      }),
    );
    for (const prefix of ['DataMedia', 'DataInvoices']) {
      const [, bucket] = s.ofType('AWS::S3::Bucket').find(([id]) => id.startsWith(prefix))!;
      expect(targetId(bucket.Properties.LoggingConfiguration.DestinationBucketName), prefix).toBe(logs[0]);
      expect(bucket.Properties.LoggingConfiguration.LogFilePrefix, prefix).toMatch(/^(media|invoices)\/$/);
    }
    expect(logs[1].Properties.LoggingConfiguration).toBeUndefined();
  });

  it('versions invoices; media is private with CORS for presigned uploads only', () => {
    const [media, invoices] = ['DataMedia', 'DataInvoices'].map(
      (prefix) => s.ofType('AWS::S3::Bucket').find(([id]) => id.startsWith(prefix))![1].Properties,
    );
    expect(invoices.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(media.VersioningConfiguration).toBeUndefined();
    expect(media.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(media.CorsConfiguration.CorsRules).toEqual([
      {
        AllowedMethods: ['PUT'],
        AllowedOrigins: ['https://app.example.test'],
        AllowedHeaders: ['content-type'],
        MaxAge: 3600,
      },
    ]);
    expect(invoices.CorsConfiguration).toBeUndefined();
  });
});

describe('queues', () => {
  it('gives every work queue (email, webhooks, jobs, channels, indexing, turns, deliveries, usage) a dead-letter queue after 5 receives; all encrypted and TLS-only', () => {
    const queues = s.ofType('AWS::SQS::Queue');
    const work = queues.filter(([, q]) => q.Properties.RedrivePolicy);
    const dlqs = queues.filter(([, q]) => !q.Properties.RedrivePolicy);
    expect(work.map(([id]) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual(
      QUEUE_NAMES.map((q) => `Queues${q}`).sort(),
    );
    expect(dlqs.length).toBe(QUEUE_NAMES.length);
    const targets = new Set<string>();
    for (const [id, q] of work) {
      expect(q.Properties.RedrivePolicy.maxReceiveCount, id).toBe(5);
      const dlq = targetId(q.Properties.RedrivePolicy.deadLetterTargetArn)!;
      expect(dlqs.map(([d]) => d)).toContain(dlq);
      targets.add(dlq);
      // Above every worker's timeout (the indexing worker's 300 s, a batch of 200 included); the usage
      // queue's 60 s above its worker's 20 s, so a failed record is retried within minutes.
      expect(q.Properties.VisibilityTimeout, id).toBe(id.startsWith('Queuesusage') ? 60 : 360);
    }
    expect(targets.size).toBe(QUEUE_NAMES.length);
    const policies = s.ofType('AWS::SQS::QueuePolicy');
    for (const [id, q] of queues) {
      expect(q.Properties.SqsManagedSseEnabled, id).toBe(true);
      const policy = policies.find(([, p]) => p.Properties.Queues.some((r: Json) => targetId(r) === id));
      expect(policy![1].Properties.PolicyDocument.Statement, id).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('makes the ordered queues (turns, channels) FIFO in high-throughput mode, with FIFO dead-letter queues; the rest standard', () => {
    const work = s.ofType('AWS::SQS::Queue').filter(([, q]) => q.Properties.RedrivePolicy);
    for (const [id, q] of work) {
      const name = QUEUE_NAMES.find((n) => id.startsWith(`Queues${n}`))!;
      const dlq = s
        .ofType('AWS::SQS::Queue')
        .find(([d]) => d === targetId(q.Properties.RedrivePolicy.deadLetterTargetArn))!;
      if (ORDERED_QUEUES.includes(name as (typeof ORDERED_QUEUES)[number])) {
        expect(q.Properties, id).toMatchObject({
          FifoQueue: true,
          DeduplicationScope: 'messageGroup',
          FifoThroughputLimit: 'perMessageGroupId',
        });
        expect(q.Properties.ContentBasedDeduplication, id).toBeUndefined();
        expect(dlq[1].Properties.FifoQueue, id).toBe(true);
      } else {
        expect(q.Properties.FifoQueue, id).toBeUndefined();
        expect(dlq[1].Properties.FifoQueue, id).toBeUndefined();
      }
    }
    expect([...ORDERED_QUEUES].sort()).toEqual(['channels', 'turns']);
  });

  it('feeds each worker from its queue with partial batch failures', () => {
    const mappings = s.ofType('AWS::Lambda::EventSourceMapping');
    expect(mappings.length).toBe(Object.keys(WORKERS).length);
    for (const [name, spec] of Object.entries(WORKERS)) {
      const m = mappings.find(([, e]) => targetId(e.Properties.FunctionName) === s.fnIds.get(name));
      expect(m, name).toBeDefined();
      expect(targetId(m![1].Properties.EventSourceArn)!.replace(/[0-9A-F]{8}$/, '')).toBe(`Queues${spec.queue}`);
      expect(m![1].Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      const batched = { 'knowledge-worker': 500, 'usage-worker': 100 } as Record<string, number>;
      expect(m![1].Properties.BatchSize, name).toBe(batched[name] ?? 5);
      expect(m![1].Properties.MaximumBatchingWindowInSeconds, name).toBe(batched[name] ? 1 : undefined);
      expect(fn(name).Timeout).toBe(('timeoutSeconds' in spec ? spec.timeoutSeconds : undefined) ?? 60);
    }
  });

  it('feeds the indexing worker up to 500 documents a delivery, gathered for up to 1 s (SQS requires a window above 10)', () => {
    const m = s
      .ofType('AWS::Lambda::EventSourceMapping')
      .find(([, e]) => targetId(e.Properties.FunctionName) === s.fnIds.get('knowledge-worker'))!;
    expect(targetId(m[1].Properties.EventSourceArn)!.replace(/[0-9A-F]{8}$/, '')).toBe('Queuesindexing');
    expect(m[1].Properties).toMatchObject({ BatchSize: 500, MaximumBatchingWindowInSeconds: 1 });
    expect(fn('knowledge-worker').Timeout).toBe(300);
  });

  it('feeds the usage worker up to 100 records a delivery, gathered for up to 1 s, retried a minute after a failure', () => {
    const m = s
      .ofType('AWS::Lambda::EventSourceMapping')
      .find(([, e]) => targetId(e.Properties.FunctionName) === s.fnIds.get('usage-worker'))!;
    const source = targetId(m[1].Properties.EventSourceArn)!;
    expect(source.replace(/[0-9A-F]{8}$/, '')).toBe('Queuesusage');
    expect(m[1].Properties).toMatchObject({ BatchSize: 100, MaximumBatchingWindowInSeconds: 1 });
    expect(fn('usage-worker').Timeout).toBe(20);
    expect(s.ofType('AWS::SQS::Queue').find(([id]) => id === source)![1].Properties.VisibilityTimeout).toBe(60);
  });
});

describe('functions', () => {
  it('are one per deployed group, the fallback, a streaming front door per group with stream routes, the workers and the scheduled ones', () => {
    const streaming = deployedRoutes.filter((r) => r.transport === 'stream').map((r) => `${r.group}-stream`);
    expect(streaming).toContain('system-stream');
    const expected = new Set([
      ...deployedRoutes.map((r) => r.group),
      'fallback',
      ...streaming,
      ...Object.keys(WORKERS),
      ...Object.keys(SCHEDULED),
      ...Object.keys(INVOKED),
    ]);
    expect(new Set(s.fnIds.keys())).toEqual(expected);
    // Plus one that only runs during a deploy: the provider of the model catalog seed (lib/llm-catalog-seed.ts).
    expect(s.ofType('AWS::Lambda::Function').length).toBe(expected.size + 1);
    expect(s.fnIds.get('catalog')).toMatch(/^Fncatalog[0-9A-F]{8}$/);
  });

  it('run Node.js 24 (the newest runtime the CDK offers) on arm64 with X-Ray active tracing, memory and timeout from the group spec', () => {
    for (const name of s.fnIds.keys()) {
      const p = fn(name);
      expect(p.Runtime, name).toBe('nodejs24.x');
      expect(p.TracingConfig, name).toEqual({ Mode: 'Active' });
      expect(p.Architectures, name).toEqual(['arm64']);
      const stream = name.endsWith('-stream');
      expect(p.Handler, name).toBe(stream ? 'index.streamHandler' : 'index.handler');
      const spec = (API_GROUPS as Record<string, { memoryMb?: number; timeoutSeconds?: number }>)[groupOfFn(name)];
      if (spec) {
        expect(p.MemorySize, name).toBe(spec.memoryMb ?? 512);
        expect(p.Timeout, name).toBe(spec.timeoutSeconds ?? (stream ? 300 : 10));
      }
    }
    expect(fn('auth').MemorySize).toBe(1024);
  });

  it('log to their own log group kept for a month', () => {
    for (const name of s.fnIds.keys()) {
      const logGroup = s.resources[targetId(fn(name).LoggingConfig.LogGroup)!];
      expect(logGroup.Type, name).toBe('AWS::Logs::LogGroup');
      expect(logGroup.Properties.RetentionInDays, name).toBe(30);
    }
  });

  it('get the config environment, with queue URLs, buckets and the vault key only where used', () => {
    for (const name of s.fnIds.keys()) {
      const env: Json = fn(name).Environment.Variables;
      expect(env, name).toMatchObject({ APP_NAME: 'saas', STAGE: 'test', MAIL_FROM: 'no-reply@example.com' });
      if (['system', 'fallback', 'webhooks', 'browser-action'].includes(groupOfFn(name)))
        expect(env.TABLE_NAME, name).toBeUndefined();
      else expect(targetId(env.TABLE_NAME), name).toMatch(/^DataTable/);
      expect(env.PUBLIC_BASE_URL['Fn::GetAtt'][1]).toBe('ApiEndpoint');
      expect(env.NODE_OPTIONS).toBeUndefined();
      // The test tiers' cheap password hash cost (set in this very process) never reaches a function.
      expect(env.SCRYPT_TEST_LOG2_N, name).toBeUndefined();
      expect('VAULT_KMS_KEY_ID' in env, name).toBe(['vault', 'jobs-worker', 'tools', 'agents'].includes(name));
    }
    expect(Object.keys(fn('vault').Environment.Variables)).toContain('JOBS_QUEUE_URL');
    expect(Object.keys(fn('catalog').Environment.Variables).filter((k) => k.endsWith('_QUEUE_URL'))).toEqual([]);
    expect(targetId(fn('jobs-worker').Environment.Variables.INVOICE_BUCKET)).toMatch(/^DataInvoices/);
    expect(flat(fn('vault').Environment.Variables.VAULT_KMS_KEY_ID)).toMatch(/^\{VaultKey[0-9A-F]{8}\.Arn\}$/);
  });

  it('runs the scheduled functions on their EventBridge schedule, without retries (the next run catches up)', () => {
    const rules = s.ofType('AWS::Events::Rule');
    expect(rules.length).toBe(Object.keys(SCHEDULED).length);
    for (const [name, spec] of Object.entries(SCHEDULED)) {
      const rule = rules.find(([, r]) => targetId(r.Properties.Targets[0].Arn) === s.fnIds.get(name));
      expect(rule, name).toBeDefined();
      expect(rule![1].Properties.ScheduleExpression).toBe(
        `rate(${spec.everyMinutes} minute${spec.everyMinutes > 1 ? 's' : ''})`,
      );
      expect(rule![1].Properties.Targets[0].RetryPolicy).toEqual({ MaximumRetryAttempts: 0 });
      expect(fn(name).Timeout).toBe(spec.timeoutSeconds);
    }
  });

  it('has a rotating vault key', () => {
    const keys = s.ofType('AWS::KMS::Key');
    expect(keys.length).toBe(1);
    expect(keys[0]![1].Properties.EnableKeyRotation).toBe(true);
  });

  it('outputs the table, bucket names and queue URLs', () => {
    const outputs = Object.keys(s.template.toJSON().Outputs);
    expect(outputs.sort()).toEqual(
      [
        'ApiUrl',
        'StreamUrlsystem',
        'StreamUrlllmgateway',
        'StreamUrlconversations',
        'EmailQueueUrl',
        'IndexingQueueUrl',
        'KnowledgeVectorBucketName',
        'InvoiceBucketName',
        'JobsQueueUrl',
        'MediaBucketName',
        'TableName',
        'WebhooksQueueUrl',
        'ChannelsQueueUrl',
        'TurnsQueueUrl',
        'DeliveriesQueueUrl',
        'UsageQueueUrl',
      ].sort(),
    );
  });
});

describe('bundling', () => {
  it('builds ESM for Node 24, module fields first, minified, AWS SDK bundled, require defined', () => {
    expect(BUNDLING).toMatchObject({
      format: 'esm',
      target: 'node24',
      mainFields: ['module', 'main'],
      minify: true,
      sourceMap: false,
      externalModules: [],
      banner: REQUIRE_BANNER,
    });
    expect(REQUIRE_BANNER).toMatch(/createRequire.*const require = /);
  });

  it('gives the benchmark the same settings as esbuild options', () => {
    expect(esbuildOptionsFor('functions/catalog/index.ts')).toEqual({
      entryPoints: ['functions/catalog/index.ts'],
      bundle: true,
      platform: 'node',
      target: NODE_TARGET,
      format: 'esm',
      mainFields: ['module', 'main'],
      minify: true,
      sourcemap: false,
      external: [...LAZY_EVERYWHERE],
      banner: { js: REQUIRE_BANNER },
      alias: { 'node:stream/web': './shared/runtime/web-streams-on-first-use.ts' },
    });
    // The CDK passes the same alias on esbuild's command line.
    expect(bundlingFor('catalog').esbuildArgs).toEqual({
      '--alias:node:stream/web': './shared/runtime/web-streams-on-first-use.ts',
    });
    expect(esbuildOptionsFor('functions/billing/index.ts').external).toEqual([
      'pdf-lib',
      '@aws-sdk/client-s3',
      ...LAZY_EVERYWHERE,
    ]);
    expect(esbuildOptionsFor('functions/fallback/index.ts').external).toEqual([]);
  });

  it('keeps each lazy package external where it is built beside the bundle, and nowhere else', () => {
    for (const name of s.fnIds.keys()) {
      const b = bundlingFor(name);
      expect(b.externalModules, name).toEqual([
        ...lazyPackagesOf(name),
        ...(name === 'browser-action' ? ['playwright-core'] : []),
      ]);
      const after = b.commandHooks?.afterBundling('/in', '/out') ?? [];
      for (const pkg of lazyPackagesOf(name))
        expect(after.join('\n'), name).toContain(`--outfile="/out/node_modules/${pkg}/index.mjs"`);
    }
    expect(Object.keys(LAZY_PACKAGES).every((name) => s.fnIds.has(name))).toBe(true);
  });

  it('loads a lazy package only on first use: no bundle imports one statically (esbuild would hoist it)', async () => {
    for (const name of ['catalog', 'billing', 'agent-runtime']) {
      const out = await build({
        ...esbuildOptionsFor(`functions/${name}/index.ts`),
        write: false,
        metafile: true,
        logLevel: 'error',
      });
      const code = out.outputFiles[0]!.text;
      // The SDK's aggregated client is kept only when esbuild wraps a module graph that is both
      // imported and import()ed: then every export of the SDK stays in the bundle (+50 KB).
      const aggregated = Object.entries(Object.values(out.metafile.outputs)[0]!.inputs).filter(
        ([input, v]) => input.endsWith('client-dynamodb/dist-es/DynamoDB.js') && v.bytesInOutput > 0,
      );
      expect(aggregated, name).toEqual([]);
      // SSM is inside (every cold start that answers a token reads the keys through it), imported by
      // name: its commands, never the aggregated client with every command of the service.
      const ssm = Object.entries(Object.values(out.metafile.outputs)[0]!.inputs)
        .filter(([input, v]) => input.includes('node_modules/@aws-sdk/client-ssm/') && v.bytesInOutput > 0)
        .map(([input]) => input.replace(/^.*client-ssm\/dist-es\//, ''));
      expect(ssm, name).toEqual(expect.arrayContaining(['commands/GetParameterCommand.js', 'SSMClient.js']));
      expect(ssm, name).not.toContain('SSM.js');
      expect(code, `${name}: client-ssm`).not.toContain('import("@aws-sdk/client-ssm")');
      // Node's web streams (imported by @middy/core at its top level) load on first use too.
      expect(code, `${name}: node:stream/web`).not.toMatch(/from\s*"node:stream\/web"/);
      for (const pkg of lazyPackagesOf(name)) {
        expect(code, `${name}: ${pkg}`).not.toMatch(new RegExp(`from\\s*"${pkg}"`));
        expect(code, `${name}: ${pkg}`).toContain(`import("${pkg}")`);
      }
    }
  }, 60_000);
});

describe('prod stage', () => {
  it('retains data stores and protects the table from deletion', () => {
    const prod = synthPlatform({ stage: 'prod' });
    const table = prod.ofType('AWS::DynamoDB::Table')[0]![1];
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties.DeletionProtectionEnabled).toBe(true);
    for (const [, b] of prod.ofType('AWS::S3::Bucket')) expect(b.DeletionPolicy).toBe('Retain');
    expect(prod.ofType('AWS::KMS::Key')[0]![1].DeletionPolicy).toBe('Retain');
  });
});
