import { createHash } from 'node:crypto';
import type { QueueName } from '#shared/routes/groups.ts';

/**
 * The queues whose messages keep their order per group: SQS FIFO queues deployed, one group at a time
 * locally. A person's chat messages are answered in the order they wrote them (`turns`, grouped by
 * conversation), and the answers reach the platform in that order (`channels`, grouped by chat).
 * A group blocks behind a message that fails until that message succeeds or is parked.
 */
export const ORDERED_QUEUES = ['turns', 'channels'] as const satisfies readonly QueueName[];

export const isOrdered = (queue: QueueName) => (ORDERED_QUEUES as readonly QueueName[]).includes(queue);

/**
 * A group or message id as SQS FIFO takes it (at most 128 characters of a restricted set): a digest,
 * so any group (a channel user's id, an event id) fits and two never collide.
 */
export const fifoId = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
