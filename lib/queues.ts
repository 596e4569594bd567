import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MAX_RECEIVE_COUNT } from '#shared/queue/redrive.ts';
import type { QueueName } from '#shared/routes/groups.ts';

export const QUEUE_NAMES = [
  'email',
  'webhooks',
  'jobs',
  'channels',
  'indexing',
  'turns',
  'deliveries',
] as const satisfies readonly QueueName[];

/** Longest a worker may run; a queue's visibility timeout is six times this. */
export const WORKER_TIMEOUT_SECONDS = 60;

/** The work queues, each with its own encrypted, TLS-only dead-letter queue. */
export class WorkQueues extends Construct {
  readonly queues: Record<QueueName, Queue>;
  readonly deadLetters: Record<QueueName, Queue>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const secure = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true };
    const queues = {} as Record<QueueName, Queue>;
    const deadLetters = {} as Record<QueueName, Queue>;
    for (const name of QUEUE_NAMES) {
      deadLetters[name] = new Queue(this, `${name}-dlq`, { ...secure, retentionPeriod: Duration.days(14) });
      queues[name] = new Queue(this, name, {
        ...secure,
        visibilityTimeout: Duration.seconds(WORKER_TIMEOUT_SECONDS * 6),
        retentionPeriod: Duration.days(4),
        deadLetterQueue: { queue: deadLetters[name], maxReceiveCount: MAX_RECEIVE_COUNT },
      });
    }
    this.queues = queues;
    this.deadLetters = deadLetters;
  }
}
