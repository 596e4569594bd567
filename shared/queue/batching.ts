import { WORKERS, type QueueName, type WorkerName } from '#shared/routes/groups.ts';

/** Records per delivery where a worker's spec names no batch size: a slow message holds few others back. */
export const DEFAULT_BATCH_SIZE = 5;

/** How a queue's messages reach its worker: up to `batchSize` a delivery, gathered for up to `windowSeconds`. */
export interface Batching {
  batchSize: number;
  /** 0: a delivery goes out with whatever is waiting. */
  windowSeconds: number;
}

/** The worker consuming a queue (each queue has exactly one). */
export const workerOf = (queue: QueueName): WorkerName =>
  (Object.entries(WORKERS) as [WorkerName, (typeof WORKERS)[WorkerName]][]).find(([, w]) => w.queue === queue)![0];

/** Read by the stack (the event source mapping) and by the local queue, so both batch alike. */
export function batchingOf(worker: WorkerName): Batching {
  const spec = WORKERS[worker];
  const batchSize = ('batchSize' in spec ? spec.batchSize : undefined) ?? DEFAULT_BATCH_SIZE;
  const windowSeconds = ('batchingWindowSeconds' in spec ? spec.batchingWindowSeconds : undefined) ?? 0;
  // Lambda refuses an SQS mapping of more than 10 records without a window of at least 1 s.
  if (batchSize > 10 && windowSeconds < 1) throw new Error(`${worker}: a batch size above 10 needs a batching window`);
  return { batchSize, windowSeconds };
}
