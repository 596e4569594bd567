import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { type IndexDesign, keyAttributes, TABLE_DESIGN } from '#shared/data/table-design.ts';

/** DynamoDB Local's jar ships inside amplify-dynamodb-simulator; only the jar is used. */
function dynamoDbLocalDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('amplify-dynamodb-simulator/package.json')), 'emulator');
}

async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * DynamoDB Local is a small server whose requests are short: on a 2-core machine the JVM's default
 * background work (the C2 compiler's threads, G1's concurrent collector) competes with it and with
 * the tests. C1 only and the serial collector answered a fixed mix of 4,000 puts, updates, gets and
 * queries in about half the time, and start it sooner (docs/records/test-time.md).
 */
const JVM_FLAGS = ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'];

export interface RunningDynamo {
  endpoint: string;
  stop(): Promise<void>;
}

export interface DynamoStartOptions {
  /** Persist under this folder; in memory when unset. */
  dbPath?: string;
  /** The Java command (`java` on PATH when unset). */
  java?: string;
  /**
   * How long to wait for the first answer. A busy 2-core machine took over 20 s to start the JVM,
   * so the default is a minute.
   */
  timeoutMs?: number;
  progress?: (line: string) => void;
  progressEveryMs?: number;
}

/** Why DynamoDB Local did not start; `npm start` prints its message alone, without a stack. */
export class DynamoLocalStartError extends Error {}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** What to check, in every failure message: a missing or wrong Java is the usual cause. */
const whatToCheck = (java: string, jar: string) =>
  `Check that \`${java} -version\` prints Java 17 or later, that JAVA_HOME (if set) points at that Java and its bin folder is on PATH, and that the jar exists: ${jar}`;

/** Starts DynamoDB Local on a free port: in memory, or persisted under `dbPath`. */
export async function startDynamoDbLocal(opts: DynamoStartOptions = {}): Promise<RunningDynamo> {
  const { java = 'java', timeoutMs = 60_000, progressEveryMs = 20_000 } = opts;
  const progress = opts.progress ?? ((line: string) => console.error(line));
  const dir = dynamoDbLocalDir();
  const jar = join(dir, 'DynamoDBLocal.jar');
  if (!existsSync(jar)) throw new DynamoLocalStartError(`DynamoDB Local jar not found in ${dir}; run npm ci`);
  const hints = whatToCheck(java, jar);
  const port = await freePort();
  const storage = opts.dbPath ? ['-dbPath', opts.dbPath] : ['-inMemory'];
  const args = [...JVM_FLAGS, `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`, '-jar', jar];
  const child = spawn(java, [...args, '-port', String(port), '-sharedDb', ...storage], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Read, so a talkative JVM never blocks on a full pipe; the tail goes into failure messages.
  let said = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (said = (said + c).slice(-2_000)));
  const javaSaid = () => (said.trim() ? ` Java said: ${said.trim()}.` : '');
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new DynamoLocalStartError(
          err.code === 'ENOENT'
            ? `Java was not found ("${java}" is not on PATH); DynamoDB Local needs Java 17 or later. ${hints}`
            : `Could not run Java for DynamoDB Local: ${err.message}. ${hints}`,
        ),
      ),
    );
    // 'close', not 'exit': by then everything Java wrote to stderr has been read.
    child.once('close', (code, signal) =>
      reject(
        new DynamoLocalStartError(
          `DynamoDB Local exited with code ${code ?? signal} before it answered.${javaSaid()} ${hints}`,
        ),
      ),
    );
  });
  exited.catch(() => undefined);
  const endpoint = `http://127.0.0.1:${port}`;
  const began = Date.now();
  let waiting = true;
  const ticker = setInterval(
    () => progress(`still waiting for DynamoDB Local (${Math.round((Date.now() - began) / 1000)} s)…`),
    progressEveryMs,
  );
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new DynamoLocalStartError(
            `DynamoDB Local did not answer in ${seconds(timeoutMs)} (a busy machine starts Java slowly).${javaSaid()} ${hints}`,
          ),
        ),
      timeoutMs,
    );
  });
  const client = localClient(endpoint);
  const ready = (async () => {
    while (waiting) {
      try {
        await client.send(new DescribeTableCommand({ TableName: '__probe__' }));
      } catch (err) {
        if ((err as { name?: string }).name === 'ResourceNotFoundException') return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  };
  try {
    await Promise.race([ready, exited, deadline]);
  } catch (err) {
    await stop();
    throw err;
  } finally {
    waiting = false;
    clearInterval(ticker);
    clearTimeout(timer);
    client.destroy();
  }
  return { endpoint, stop };
}

export const localClient = (endpoint: string) =>
  new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

const indexKeySchema = (i: IndexDesign) => [
  { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
  ...(i.sortKey ? [{ AttributeName: i.sortKey, KeyType: 'RANGE' as const }] : []),
];
const gsi = (i: IndexDesign) => ({
  IndexName: i.name,
  KeySchema: indexKeySchema(i),
  Projection: { ProjectionType: i.projection },
});
const attributeDefinitions = () =>
  keyAttributes().map((name) => ({ AttributeName: name, AttributeType: 'S' as const }));

/**
 * Creates the table with the same keys and indexes as the stack, if it does not exist; a table
 * persisted by an older version (`npm start` keeps data) gets the indexes added since.
 */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = localClient(endpoint);
  const { partitionKey, sortKey, indexes, ttlAttribute } = TABLE_DESIGN;
  let existing: string[] | null = null;
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    existing = (Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName!);
  } catch (err) {
    if ((err as { name?: string }).name !== 'ResourceNotFoundException') throw err;
  }
  if (existing) {
    // DynamoDB allows one index creation per UpdateTable call.
    for (const index of indexes.filter((i) => !existing.includes(i.name))) {
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: attributeDefinitions(),
          GlobalSecondaryIndexUpdates: [{ Create: gsi(index) }],
        }),
      );
    }
    return;
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: attributeDefinitions(),
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: indexes.map(gsi),
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
    }),
  );
}
