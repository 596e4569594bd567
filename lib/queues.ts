import { Duration } from 'aws-cdk-lib';
import { DeduplicationScope, FifoThroughputLimit, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { isOrdered } from '#shared/queue/ordering.ts';
import { MAX_RECEIVE_COUNT } from '#shared/queue/redrive.ts';
import { WORKERS, type QueueName } from '#shared/routes/groups.ts';
import { workerOf } from '#shared/queue/batching.ts';

export const QUEUE_NAMES = [
  'email',
  'webhooks',
  'jobs',
  'channels',
  'indexing',
  'turns',
  'deliveries',
  'usage',
] as const satisfies readonly QueueName[];

/**
 * Longest a worker may run unless its spec says otherwise; a queue's visibility timeout is six times
 * this (360 s). It stays so for the workers that run longer (turns 120 s, indexing 300 s): it is
 * also the wait before a failed message's retry, and a retry must come within the knowledge stage
 * deadlines (Processing 15 min) and keep a person's chat turns from waiting longer.
 */
export const WORKER_TIMEOUT_SECONDS = 60;

/** A queue's visibility timeout: its worker's own, or six times the default worker timeout. */
export const visibilitySecondsOf = (queue: QueueName): number => {
  const spec = WORKERS[workerOf(queue)];
  return 'visibilitySeconds' in spec ? spec.visibilitySeconds : WORKER_TIMEOUT_SECONDS * 6;
};

/**
 * FIFO in high-throughput mode (de-duplication and the throughput limit per group): the order holds
 * within a group, and groups, not the queue, bound the rate. Its dead-letter queue must be FIFO too.
 */
const FIFO = {
  fifo: true,
  deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
  fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
} as const;

/** The work queues, each with its own encrypted, TLS-only dead-letter queue; the ordered ones FIFO. */
export class WorkQueues extends Construct {
  readonly queues: Record<QueueName, Queue>;
  readonly deadLetters: Record<QueueName, Queue>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const secure = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true };
    const queues = {} as Record<QueueName, Queue>;
    const deadLetters = {} as Record<QueueName, Queue>;
    for (const name of QUEUE_NAMES) {
      const ordered = isOrdered(name);
      deadLetters[name] = new Queue(this, `${name}-dlq`, {
        ...secure,
        ...(ordered ? { fifo: true } : {}),
        retentionPeriod: Duration.days(14),
      });
      queues[name] = new Queue(this, name, {
        ...secure,
        ...(ordered ? FIFO : {}),
        visibilityTimeout: Duration.seconds(visibilitySecondsOf(name)),
        retentionPeriod: Duration.days(4),
        deadLetterQueue: { queue: deadLetters[name], maxReceiveCount: MAX_RECEIVE_COUNT },
      });
    }
    this.queues = queues;
    this.deadLetters = deadLetters;
  }
}
