import { safeParse, type z } from 'zod/mini';
import { queueSender } from '#shared/platform/ports.ts';
import type { QueueName } from '#shared/routes/groups.ts';
import { once, type AnySchema } from '#shared/routes/types.ts';
import { isOrdered } from './ordering.ts';

/**
 * A kind of queue message: its queue, its type name and the schema of its payload. The sender
 * passes a typed payload; the worker parses it with the same schema at its edge, as request bodies
 * are, so a handler never casts `payload as unknown as ...`.
 */
export interface MessageKind<S extends AnySchema = AnySchema> {
  queue: QueueName;
  type: string;
  schema: () => S;
  /** On an ordered queue: the group a message keeps its order in (a conversation, a chat). */
  group?: (payload: z.input<S>) => string;
}

export const messageKind = <S extends AnySchema>(
  queue: QueueName,
  type: string,
  schema: () => S,
  opts: { group?: (payload: z.input<S>) => string } = {},
): MessageKind<S> => {
  // Every message of an ordered queue names its group: SQS FIFO refuses one that does not.
  if (isOrdered(queue) !== !!opts.group)
    throw new Error(`${type}: a message kind names a group exactly when its queue (${queue}) is ordered`);
  return { queue, type, schema: once(schema), ...(opts.group ? { group: opts.group } : {}) };
};

/** Queues one message; `id` (default random) is what the worker's once-only claim keys on; `delaySeconds` holds it back. */
export async function enqueue<S extends AnySchema>(
  kind: MessageKind<S>,
  payload: z.input<S>,
  opts: { id?: string; delaySeconds?: number } = {},
): Promise<string> {
  const id = opts.id ?? crypto.randomUUID();
  const message = { id, type: kind.type, payload: payload as Record<string, unknown> };
  const sender = await queueSender();
  const group = kind.group?.(payload);
  if (opts.delaySeconds && group) throw new Error(`${kind.type}: an ordered queue delays no single message`);
  if (group) await sender.send(kind.queue, message, { group });
  else if (opts.delaySeconds) await sender.send(kind.queue, message, { delaySeconds: opts.delaySeconds });
  else await sender.send(kind.queue, message);
  return id;
}

/** A message whose payload breaks its kind's schema: it cannot succeed, so it goes to the dead-letter queue. */
class MalformedMessageError extends Error {
  constructor(type: string, issues: string) {
    super(`Malformed ${type} message: ${issues}`);
    this.name = 'MalformedMessageError';
  }
}

/** The payload parsed with its kind's schema. */
export function parsePayload<S extends AnySchema>(kind: MessageKind<S>, payload: unknown): z.output<S> {
  const parsed = safeParse(kind.schema() as AnySchema as z.ZodMiniType, payload);
  if (parsed.success) return parsed.data as z.output<S>;
  const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'} ${i.message}`);
  throw new MalformedMessageError(kind.type, issues.join('; '));
}

/**
 * Which delivery of a message this is (SQS ApproximateReceiveCount): a handler that records a
 * failure for people to see (a proactive message's platform error) does so on the last one.
 */
export interface Delivery {
  receiveCount: number;
  /** A failure now parks the message in the dead-letter queue: there is no retry after it. */
  lastReceive: boolean;
}

/** A worker's handler of one kind; the worker parses the payload with the kind's schema before `run`. */
export interface MessageRoute {
  kind: MessageKind;
  run(payload: unknown, messageId: string, delivery: Delivery): Promise<unknown>;
  /**
   * A batch route's handler (`handlesBatch`): the worker passes it every claimed message of the kind in
   * one delivery at once; it resolves to the ids that failed. `run` then handles one message alone.
   */
  runBatch?(items: BatchItem<unknown>[]): Promise<readonly string[]>;
  /**
   * The batch route counts each message once itself (by an id in its payload, in the writes that
   * count it), so the worker claims none: a message delivered twice runs twice, harmlessly.
   */
  countsOnce?: boolean;
}

export const handles = <S extends AnySchema>(
  kind: MessageKind<S>,
  run: (payload: z.output<S>, messageId: string, delivery: Delivery) => Promise<unknown>,
): MessageRoute => ({ kind, run });

/** One message of a delivery handed to a batch route. */
export interface BatchItem<P> {
  payload: P;
  messageId: string;
  delivery: Delivery;
}

/**
 * A kind whose messages of one delivery are handled together (documents indexed in fewer writes).
 * `run` resolves to the message ids that failed, to be retried; a throw fails them all. Only on a
 * standard queue (queueWorker refuses it on an ordered one, whose groups run one message at a time).
 */
export const handlesBatch = <S extends AnySchema>(
  kind: MessageKind<S>,
  run: (items: BatchItem<z.output<S>>[]) => Promise<readonly string[]>,
  opts: { countsOnce?: boolean } = {},
): MessageRoute => {
  const runBatch = run as (items: BatchItem<unknown>[]) => Promise<readonly string[]>;
  return {
    kind,
    runBatch,
    ...(opts.countsOnce ? { countsOnce: true } : {}),
    async run(payload, messageId, delivery) {
      const failed = await runBatch([{ payload, messageId, delivery }]);
      if (failed.includes(messageId)) throw new Error(`${kind.type} message ${messageId} failed in its batch`);
    },
  };
};
