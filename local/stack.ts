import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { config } from '#shared/platform/config.ts';
import { batchingOf } from '#shared/queue/batching.ts';
import { functionInvoker, mailer, parameterStore, queueSender } from '#shared/platform/ports.ts';
import { localInvoker } from './invoke.ts';
import { paymentProviders } from '#areas/billing/gateway.ts';
import { ensureAdmin, ensureInternalKey, ensureSigningKeys, type AdminOutcome } from './bootstrap.ts';
import { ensureTable, startDynamoDbLocal } from './dynamodb-local.ts';
import { fileParameterStore } from './file-parameter-store.ts';
import { localQueue } from './local-queue.ts';
import { fileVectorStore } from './knowledge-vectors.ts';
import { vectorStore } from '#areas/knowledge/vectors/port.ts';
import { localPaymentProviders } from './providers/payment-provider.ts';
import { fileOutbox } from './outbox.ts';
import { recordChannelCallsIn } from './channels.ts';
import { startS3 } from './s3.ts';
import { runScheduledJobs } from '#functions/ai-scheduler/index.ts';
import { seedReferenceData } from './seed.ts';

export class JavaMissingError extends Error {}

/** DynamoDB Local is a Java program; say so plainly instead of failing with ENOENT later. */
function requireJava(): void {
  const out = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const needed =
    'Java 17+ is required for DynamoDB Local (install a JDK/JRE 17 or newer and put `java` on PATH; if JAVA_HOME is set, it should point at that Java)';
  if (out.error || out.status !== 0)
    throw new JavaMissingError(`${needed}; \`java -version\` failed: ${out.error?.message ?? out.stderr}`);
  const [, first = '0', second = '0'] = /version "(\d+)(?:\.(\d+))?/.exec(`${out.stderr}${out.stdout}`) ?? [];
  const major = first === '1' ? Number(second) : Number(first);
  if (major < 17) throw new JavaMissingError(`${needed}; found Java ${major}`);
}

export interface LocalStack {
  dynamoEndpoint: string;
  s3Endpoint: string;
  queue: ReturnType<typeof localQueue>;
  outbox: ReturnType<typeof fileOutbox>;
  admin: AdminOutcome;
  internalKey: Awaited<ReturnType<typeof ensureInternalKey>>;
  seeded: number;
  stop(): Promise<void>;
}

/**
 * Every AWS service the API uses, stood in for locally and persisted under `dataDir`: DynamoDB
 * Local (table), s3rver (buckets), an in-process queue (SQS), a file outbox (SES), a file
 * parameter store (SSM) and the payment providers' stand-in (installed here, never bundled). Then
 * the data every deployment starts with: keys, admin, reference data.
 */
export async function startLocalStack(dataDir: string): Promise<LocalStack> {
  requireJava();
  mkdirSync(join(dataDir, 'dynamodb'), { recursive: true });
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch((err) => console.error('[local] stop failed:', err));
  };
  try {
    const dynamo = await startDynamoDbLocal({ dbPath: join(dataDir, 'dynamodb') });
    stops.push(dynamo.stop);
    process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamo.endpoint;
    const s3 = await startS3(dataDir);
    stops.push(s3.stop);
    await ensureTable(dynamo.endpoint, config.tableName);

    const params = fileParameterStore(dataDir);
    // Model calls' records gather for their worker's batching window, as deployed: they are on nobody's
    // path, and one transaction for a window's calls spares DynamoDB Local a transaction per call.
    const queue = localQueue({
      dataDir,
      queues: { usage: { windowMs: batchingOf('usage-worker').windowSeconds * 1000 } },
    });
    const outbox = fileOutbox(dataDir);
    parameterStore.install(params);
    queueSender.install(queue);
    mailer.install(outbox);
    functionInvoker.install(localInvoker);
    paymentProviders.install(localPaymentProviders);
    // The chat platforms' stand-in keeps its record beside the outbox (GET /_local/channels).
    recordChannelCallsIn(dataDir);
    // Knowledge vectors: the S3 Vectors stand-in, kept in LOCAL_DATA_DIR like the table.
    const vectors = fileVectorStore(dataDir);
    vectorStore.install(vectors);
    // Let messages already handed to a worker finish (as Lambda would) before the table goes away.
    stops.push(() => Promise.race([queue.drain(), new Promise<void>((r) => setTimeout(r, 5000).unref())]));

    await ensureSigningKeys(params);
    const internalKey = await ensureInternalKey(params);
    const admin = await ensureAdmin();
    const seeded = await seedReferenceData();
    // The ai-scheduler's minute, locally (docs/architecture.md, "The scheduler"): the same jobs as the deployed one.
    const sweep = setInterval(() => {
      runScheduledJobs().catch((err) => console.error('[local] scheduled jobs failed:', err));
    }, 60_000).unref();
    stops.push(async () => clearInterval(sweep));
    return {
      dynamoEndpoint: dynamo.endpoint,
      s3Endpoint: s3.endpoint,
      queue,
      outbox,
      admin,
      internalKey,
      seeded,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
