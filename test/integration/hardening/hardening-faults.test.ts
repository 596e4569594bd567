import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { mockClient, type AwsClientStub } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { routesOf } from '#test/support/queue-routes.ts';
import { localQueue } from '#local/local-queue.ts';
import { createSesMailer } from '#shared/platform/aws-mailer.ts';
import { ddb } from '#shared/platform/aws.ts';
import { mailer, type QueueMessage } from '#shared/platform/ports.ts';
import { queueWorker } from '#shared/queue/worker.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { envelopeProblem } from '#test/support/fuzz/checks.ts';
import {
  buildPath,
  queryString,
  routesUnderTest,
  sampleValid,
  takesJsonBody,
} from '#test/support/fuzz/route-matrix.ts';
import { semanticRequest } from '#test/support/fuzz/semantic.ts';
import { diff, type Snapshot, snapshot } from '#test/support/fuzz/table.ts';
import { createWorld, credentialsFor, nextIp, type World } from '#test/support/fuzz/world.ts';
import { invoke } from '#test/support/invoke.ts';
import { testMailer } from '#test/support/test-ports.ts';

/**
 * DynamoDB throttling and transaction conflicts injected under the real handlers
 * (aws-sdk-client-mock on the document client, passing every other call through to DynamoDB
 * Local) become a retry or a clean 503/409 and never a half-written record; a failing queue
 * consumer reports a partial batch failure and the local queue retries then dead-letters it; the
 * e-mail worker survives an SES error without losing the e-mail.
 */
const COMMANDS = [
  GetCommand,
  PutCommand,
  UpdateCommand,
  DeleteCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  TransactGetCommand,
  BatchGetCommand,
  BatchWriteCommand,
];

let world: World;
let real: DynamoDBDocumentClient;
let mocked: DynamoDBDocumentClient;
let mock: AwsClientStub<DynamoDBDocumentClient>;

const conflictError = () =>
  Object.assign(
    new Error('Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]'),
    {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }],
      $metadata: { httpStatusCode: 400 },
    },
  );
const throttlingError = () =>
  Object.assign(
    new Error('Rate of requests exceeds the allowed throughput. arn:aws:dynamodb:us-east-1:000000000000:table/x'),
    {
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 400 },
    },
  );
const internalError = () =>
  Object.assign(new Error('Internal server error at /var/task/index.mjs:1:2 (ValidationException)'), {
    name: 'InternalServerError',
    $metadata: { httpStatusCode: 500 },
  });

/** Every command goes to DynamoDB Local unless a test says otherwise. */
function passThrough() {
  mock.reset();
  // biome-ignore lint/suspicious/noExplicitAny: the classes' inputs differ, and each input goes back to its own class
  for (const C of COMMANDS) mock.on(C as any).callsFake((input: any) => real.send(new (C as any)(input)));
}

beforeAll(async () => {
  world = await createWorld();
  const client = () =>
    new DynamoDBClient({
      endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB,
      region: process.env.AWS_REGION ?? 'us-east-1',
      maxAttempts: 1,
    });
  const marshallOptions = { removeUndefinedValues: true, convertClassInstanceToMap: false };
  real = DynamoDBDocumentClient.from(client(), { marshallOptions });
  mocked = DynamoDBDocumentClient.from(client(), { marshallOptions });
  mock = mockClient(mocked);
  passThrough();
  ddb.install(mocked);
});

afterEach(() => passThrough());

afterAll(() => {
  mock?.restore();
  ddb.install(undefined);
});

/** Routes that create a record from a JSON body. */
const createRoutes = routesUnderTest().filter((r) => r.method === 'POST' && r.status === 201 && takesJsonBody(r));

async function prepared(route: RouteDef) {
  const req = await semanticRequest(route, world);
  const q = queryString(req.query);
  return () =>
    invoke(route.method, `${buildPath(route, req.params)}${q ? `?${q}` : ''}`, {
      ...req.creds,
      body: req.body,
      ip: nextIp(),
    });
}

const WRITES: unknown[] = [PutCommand, UpdateCommand, DeleteCommand, TransactWriteCommand, BatchWriteCommand];
/** Whether any write command went out since the history was last reset. */
const wroteAnything = () => mock.calls().some((c) => WRITES.includes((c.args[0] as object).constructor));

const putsSent = () => mock.commandCalls(PutCommand).map((c) => c.args[0].input);
const transactionsSent = () => mock.commandCalls(TransactWriteCommand).map((c) => c.args[0].input);

/**
 * A record Put (an item with id, createdAt and a newest-first index entry) must travel in a
 * transaction with its collection counter and an audit entry; never alone.
 */
function halfWrites(): string[] {
  const problems: string[] = [];
  const isRecord = (item: Record<string, unknown> | undefined): item is Record<string, unknown> =>
    !!item &&
    typeof item.id === 'string' &&
    !!item.createdAt &&
    !!item.gsi1pk &&
    !String(item.pk).startsWith('PLATFORM#AUDIT') &&
    !String(item.pk).startsWith('PLATFORM#INTEGRATION_EVENT');
  for (const input of putsSent())
    if (isRecord(input.Item)) problems.push(`standalone Put of ${input.Item.pk}|${input.Item.sk}`);
  for (const input of transactionsSent()) {
    const items = input.TransactItems ?? [];
    for (const put of items.filter((t) => isRecord(t.Put?.Item))) {
      const item = put.Put!.Item!;
      const counter = items.some((t) => t.Update?.Key?.pk === item.gsi1pk && t.Update?.Key?.sk === '#COUNT');
      const audit = items.some((t) => t.Put?.Item?.pk === 'PLATFORM#AUDIT');
      if (!counter) problems.push(`Put of ${item.pk}|${item.sk} without its counter`);
      if (!audit) problems.push(`Put of ${item.pk}|${item.sk} without an audit entry`);
    }
  }
  return problems;
}

describe('transaction conflicts and throttling under every create route', () => {
  it.each(createRoutes.map((r) => [r.id, r] as const))('%s', async (_id, route) => {
    // One conflict, then DynamoDB: the transaction is retried and the record is written once.
    const once = await prepared(route);
    mock.resetHistory();
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(conflictError())
      .callsFake((input) => real.send(new TransactWriteCommand(input)));
    const retried = await once();
    expect(retried).toAnswer(201);
    expect(transactionsSent().length).toBeGreaterThanOrEqual(2);
    expect(halfWrites()).toEqual([]);
    passThrough();

    // Conflicts every time, then throttling every time, then an unexpected AWS error: a clean
    // 409, 503 and 500, and nothing written.
    let last: Snapshot | undefined;
    for (const [fault, status, code] of [
      [conflictError, 409, 'CONFLICT'],
      [throttlingError, 503, 'SERVICE_UNAVAILABLE'],
      [internalError, 500, 'INTERNAL_ERROR'],
    ] as const) {
      mock.resetHistory();
      const send = await prepared(route);
      // Every write of the app goes through the mocked client: when preparing wrote nothing, the
      // table is still the one scanned after the previous fault (a scan of the grown table is the
      // file's largest cost).
      const before = last && !wroteAnything() ? last : await snapshot();
      mock.resetHistory();
      mock.on(TransactWriteCommand).rejects(fault());
      const res = await send();
      passThrough();
      const where = `${route.id} under ${fault().name}: ${res.status} ${res.text}`;
      expect(res, where).toAnswer(status, code);
      expect(res.text, where).not.toMatch(/arn:aws|dynamodb|ValidationException|\/var\/task|Transaction is ongoing/i);
      if (status === 503) expect(Number(res.headers['retry-after']), where).toBeGreaterThanOrEqual(1);
      expect(envelopeProblem(res), where).toBeNull();
      expect(halfWrites(), where).toEqual([]);
      last = await snapshot();
      expect(diff(before, last), `${where}: wrote`).toEqual({ added: [], removed: [], changed: [] });
    }
  });
});

describe('a fault after the transaction committed', () => {
  // Found by this suite and fixed: the platform-wide audit and integration-event counters are
  // bumped after the create's transaction. A throttled bump used to answer 503 for a record that
  // was already saved, so a client retry created it twice; the bump is now best effort
  // (bumpCounterAfterCommit in shared/data/collection.ts).
  for (const route of createRoutes) {
    it(`${route.id}: a throttled platform-counter bump does not turn a committed create into a 503`, async () => {
      const send = await prepared(route);
      mock.on(UpdateCommand).callsFake((input) => {
        if (String(input.Key?.pk).startsWith('PLATFORM#') && input.Key?.sk === '#COUNT') throw throttlingError();
        return real.send(new UpdateCommand(input));
      });
      const res = await send();
      passThrough();
      expect(res, `${route.id}: ${res.status} ${res.text.slice(0, 200)}`).toAnswer(201);
    });
  }
});

describe('throttled reads', () => {
  const reads = routesUnderTest().filter((r) => r.method === 'GET' && !r.rawResponse && r.auth.kind !== 'none');
  it.each(reads.map((r) => [r.id, r] as const))(
    '%s answers 503 with Retry-After, or without DynamoDB',
    async (_id, route) => {
      const parts = sampleValid(route);
      const q = queryString({ ...parts.query, tenantId: undefined });
      mock.on(GetCommand).rejects(throttlingError());
      mock.on(QueryCommand).rejects(throttlingError());
      mock.on(BatchGetCommand).rejects(throttlingError());
      mock.on(TransactGetCommand).rejects(throttlingError());
      const res = await invoke('GET', `${buildPath(route, parts.params)}${q ? `?${q}` : ''}`, {
        ...credentialsFor(route, world),
        ip: nextIp(),
      });
      const where = `${route.id}: ${res.status} ${res.text.slice(0, 200)}`;
      // Routes whose data is not in DynamoDB (the vault reads SSM) answer as usual.
      expect(res.status === 503 || res.status < 500, where).toBe(true);
      expect(envelopeProblem(res), where).toBeNull();
      if (res.status === 503) {
        expect(res.json.error.code, where).toBe('SERVICE_UNAVAILABLE');
        expect(res.headers['retry-after'], where).toBeDefined();
        expect(res.text, where).not.toMatch(/arn:aws|dynamodb|Throttling/i);
      }
    },
  );
});

describe('queue consumers', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hardening-queue-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a failing consumer reports a partial batch failure; the local queue retries, then dead-letters', async () => {
    let attempts = 0;
    const worker = queueWorker(
      'hardening',
      routesOf({
        'always.fail': async () => {
          attempts++;
          throw new Error('downstream is down');
        },
        works: async () => undefined,
      }),
    );
    const batch = await worker({
      Records: [
        { messageId: 'm-ok', body: JSON.stringify({ type: 'works', payload: {} }) },
        { messageId: 'm-bad', body: JSON.stringify({ type: 'always.fail', payload: {} }) },
      ],
    } as unknown as SQSEvent);
    expect(batch.batchItemFailures).toEqual([{ itemIdentifier: 'm-bad' }]);

    attempts = 0;
    const queue = localQueue({ dataDir: dir, loadWorker: async () => worker, maxAttempts: 3, backoffMs: 5 });
    await queue.send('jobs', { type: 'always.fail', payload: { n: 1 }, id: crypto.randomUUID() });
    await queue.drain();
    expect(attempts).toBe(3);
    const letters = queue.deadLetters();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ queue: 'jobs', attempts: 3 });
    expect(JSON.parse(letters[0]!.body)).toMatchObject({ type: 'always.fail', payload: { n: 1 } });
  });

  it('a consumer that fails twice then succeeds applies the message once and dead-letters nothing', async () => {
    let attempts = 0;
    let applied = 0;
    const worker = queueWorker(
      'hardening',
      routesOf({
        flaky: async () => {
          attempts++;
          if (attempts < 3) throw new Error('try again');
          applied++;
        },
      }),
    );
    const queue = localQueue({
      dataDir: join(dir, 'flaky'),
      loadWorker: async () => worker,
      maxAttempts: 5,
      backoffMs: 5,
    });
    await queue.send('jobs', { type: 'flaky', payload: {}, id: crypto.randomUUID() });
    await queue.drain();
    expect({ attempts, applied, deadLetters: queue.deadLetters().length }).toEqual({
      attempts: 3,
      applied: 1,
      deadLetters: 0,
    });
  });
});

describe('the e-mail worker survives an SES error', () => {
  const mail = () => ({
    to: [`ses-${crypto.randomUUID().slice(0, 6)}@example.com`],
    subject: 'Your code',
    text: 'Your code is 123456',
    html: '<p>Your code is 123456</p>',
  });
  let ses: SESClient;
  let sesMock: AwsClientStub<SESClient>;

  beforeAll(async () => {
    ses = new SESClient({ region: 'us-east-1' });
    sesMock = mockClient(ses);
    mailer.install(await createSesMailer(ses));
  });
  afterAll(() => {
    sesMock.restore();
    mailer.install(testMailer);
  });

  it('reports the failure (the message stays queued) and sends the same e-mail on redelivery', async () => {
    const { handler } = await import('#functions/email-worker/index.ts');
    sesMock.reset();
    sesMock
      .on(SendEmailCommand)
      .rejectsOnce(Object.assign(new Error('Maximum sending rate exceeded.'), { name: 'Throttling' }))
      .resolves({ MessageId: 'ses-1' });
    const message: QueueMessage = { type: 'email.send', payload: mail(), id: crypto.randomUUID() };
    const record = { messageId: 'sqs-1', body: JSON.stringify(message) };
    const first = await handler({ Records: [record] } as unknown as SQSEvent);
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'sqs-1' }]);
    const second = await handler({ Records: [record] } as unknown as SQSEvent);
    expect(second.batchItemFailures).toEqual([]);
    const sent = sesMock.commandCalls(SendEmailCommand).map((c) => c.args[0].input);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual(sent[0]);
    expect(sent[1]!.Destination?.ToAddresses).toEqual((message.payload as { to: string[] }).to);
    // A third delivery of the same message (SQS is at-least-once) sends nothing more.
    expect((await handler({ Records: [record] } as unknown as SQSEvent)).batchItemFailures).toEqual([]);
    expect(sesMock.commandCalls(SendEmailCommand)).toHaveLength(2);
  });

  it('through the local queue: retried after the SES error, delivered once, nothing dead-lettered', async () => {
    sesMock.reset();
    sesMock
      .on(SendEmailCommand)
      .rejectsOnce(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' }))
      .resolves({ MessageId: 'ses-2' });
    const dir = mkdtempSync(join(tmpdir(), 'hardening-mail-'));
    try {
      const queue = localQueue({ dataDir: dir, maxAttempts: 3, backoffMs: 5 });
      const m = mail();
      await queue.send('email', {
        type: 'email.send',
        payload: m as unknown as Record<string, unknown>,
        id: crypto.randomUUID(),
      });
      await queue.drain();
      expect(queue.deadLetters()).toEqual([]);
      const sent = sesMock.commandCalls(SendEmailCommand).map((c) => c.args[0].input);
      expect(sent).toHaveLength(2);
      expect(sent[1]!.Destination?.ToAddresses).toEqual(m.to);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
