import { spawn, type ChildProcess } from 'node:child_process';
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

/** Starts DynamoDB Local on a free port: in memory, or persisted under `dbPath`. */
export async function startDynamoDbLocal(opts: { dbPath?: string } = {}): Promise<RunningDynamo> {
  const dir = dynamoDbLocalDir();
  if (!existsSync(join(dir, 'DynamoDBLocal.jar')))
    throw new Error(`DynamoDB Local jar not found in ${dir}; run npm ci`);
  const port = await freePort();
  const storage = opts.dbPath ? ['-dbPath', opts.dbPath] : ['-inMemory'];
  let child: ChildProcess;
  try {
    child = spawn(
      'java',
      [
        ...JVM_FLAGS,
        `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
        '-jar',
        join(dir, 'DynamoDBLocal.jar'),
        '-port',
        String(port),
        '-sharedDb',
        ...storage,
      ],
      {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
  } catch (err) {
    throw new Error(`Could not start Java for DynamoDB Local (Java 17+ must be installed): ${(err as Error).message}`);
  }
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (err) =>
      reject(
        new Error(`Could not start Java for DynamoDB Local (Java 17+ must be installed and on PATH): ${err.message}`),
      ),
    );
    child.once('exit', (code) => reject(new Error(`DynamoDB Local exited with code ${code}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localClient(endpoint);
  const ready = (async () => {
    for (let i = 0; i < 200; i++) {
      try {
        await client.send(new DescribeTableCommand({ TableName: '__probe__' }));
      } catch (err) {
        if ((err as { name?: string }).name === 'ResourceNotFoundException') return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('DynamoDB Local did not start in 20 s');
  })();
  await Promise.race([ready, exited]);
  exited.catch(() => undefined);
  return {
    endpoint,
    stop: async () => {
      if (child.exitCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
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
