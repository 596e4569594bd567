import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TimedCall } from './stats.ts';

/** One DynamoDB request as the SDK sent it (initialize step: once per command, retries excluded). */
export interface DdbRequest {
  command: string;
  /** Capacity units DynamoDB reported (`ReturnConsumedCapacity: TOTAL`, added by the bench only). */
  capacity: number;
}

/** A `send` on the document client, kept so the same calls can be replayed bare. */
export interface SentCommand extends TimedCall {
  ctor: new (input: never) => unknown;
  input: unknown;
  output?: unknown;
}

export class ScanIssuedError extends Error {}

type Capacity = { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;

const capacityOf = (c: Capacity) =>
  Array.isArray(c) ? c.reduce((s, x) => s + (x.CapacityUnits ?? 0), 0) : (c?.CapacityUnits ?? 0);

/**
 * Counts every request the process's document client sends and the capacity DynamoDB reports,
 * records sends for replay, and refuses Scans: a Scan on any path fails the whole run.
 */
export class DdbRecorder {
  requests: DdbRequest[] = [];
  sends: SentCommand[] = [];
  scans: string[] = [];
  /** What is running now (for the Scan report). */
  label = 'setup';

  reset() {
    this.requests = [];
    this.sends = [];
  }

  get capacity() {
    return this.requests.reduce((s, r) => s + r.capacity, 0);
  }

  install(client: DynamoDBDocumentClient) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = context.commandName ?? 'unknown';
        if (command === 'ScanCommand') {
          this.scans.push(this.label);
          throw new ScanIssuedError(`Scan issued while running ${this.label}`);
        }
        const input = { ...(args.input as object), ReturnConsumedCapacity: 'TOTAL' };
        const out = await next({ ...args, input });
        this.requests.push({
          command,
          capacity: capacityOf((out.output as { ConsumedCapacity?: Capacity }).ConsumedCapacity),
        });
        return out;
      },
      { step: 'initialize', name: 'benchDdbRecorder', priority: 'high', override: true },
    );
    const send = client.send.bind(client) as (command: unknown, ...rest: unknown[]) => Promise<unknown>;
    (client as unknown as { send: typeof send }).send = async (command: unknown, ...rest: unknown[]) => {
      const entry: SentCommand = {
        ctor: (command as object).constructor as SentCommand['ctor'],
        input: (command as { input: unknown }).input,
        startedAt: performance.now(),
        endedAt: Number.POSITIVE_INFINITY,
      };
      this.sends.push(entry);
      try {
        entry.output = await send(command, ...rest);
        return entry.output;
      } finally {
        entry.endedAt = performance.now();
      }
    };
    return this;
  }
}
