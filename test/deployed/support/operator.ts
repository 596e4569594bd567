import type { SQSClient } from '@aws-sdk/client-sqs';
import { ensureAdmin } from '#local/bootstrap.ts';
import { createSqsQueueSender } from '#shared/platform/aws-queue.ts';
import { queueSender } from '#shared/platform/ports.ts';
import { enqueue, type MessageKind } from '#shared/queue/messages.ts';
import type { AnySchema } from '#shared/routes/types.ts';
import type { z } from 'zod/mini';
import type { World } from './world.ts';

const ADMIN = { email: 'operator@platform.example', password: 'Operator-pass-2026!' };

/**
 * The stage's first SystemAdmin. No deployed path creates one (docs/operations.md, "What the deployed
 * tier cannot run"): the operator writes the account into the table, as the local server's bootstrap
 * does, here with this process's own DynamoDB client on the stand-in; then it signs in through the API.
 */
export async function operatorAdmin(w: World): Promise<string> {
  const table = w.stack.template.ofType('AWS::DynamoDB::Table')[0]![0];
  process.env.TABLE_NAME = w.stack.template.ref(table);
  process.env.AWS_ENDPOINT_URL_DYNAMODB = w.stack.endpoints.dynamodb;
  process.env.ADMIN_PASSWORD = ADMIN.password;
  await ensureAdmin(ADMIN.email);
  const login = await w.api('POST', '/api/auth/login', { body: ADMIN, from: '127.0.0.3' });
  if (login.status !== 200) throw new Error(`The operator's admin cannot sign in: ${login.text}`);
  return login.json.result.accessToken as string;
}

/**
 * A message queued as its producer queues it (the project's own SQS adapter: body, FIFO group and
 * de-duplication id), from this process straight to the SQS stand-in, for a worker whose producers
 * need what no scenario here may have (a subscriber's public address, a chat platform's account).
 */
export async function queueAsProducer<S extends AnySchema>(w: World, kind: MessageKind<S>, payload: z.input<S>) {
  const queue = w.stack.template
    .ofType('AWS::SQS::Queue')
    .find(([id]) => id.startsWith(`Queues${kind.queue}`) && !id.includes('dlq'))!;
  process.env[`${kind.queue.toUpperCase()}_QUEUE_URL`] = w.stack.template
    .ref(queue[0])
    .replace(w.stack.fronts.sqs, w.stack.endpoints.sqs);
  const { SQSClient: Client } = await import('@aws-sdk/client-sqs');
  const client: SQSClient = new Client({
    endpoint: w.stack.endpoints.sqs,
    region: 'us-east-1',
    credentials: { accessKeyId: 'producer', secretAccessKey: 'producer' },
  });
  queueSender.install(await createSqsQueueSender(client));
  await enqueue(kind, payload);
}
