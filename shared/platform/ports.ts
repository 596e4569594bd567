import { createSsmParameterStore } from './aws-params.ts';
import type { QueueName } from '#shared/routes/groups.ts';

export { defineLoadedPort, definePort, type Port } from './port.ts';
import { defineLoadedPort } from './port.ts';

export interface ParameterStore {
  get(name: string, opts?: { decrypt?: boolean }): Promise<{ value: string; version: number } | null>;
  put(name: string, value: string, opts?: { secure?: boolean; overwrite?: boolean }): Promise<{ version: number }>;
  /** Deletes the parameter and its history; false when there was none. */
  delete(name: string): Promise<boolean>;
  /** All parameters below a path (every page). */
  listByPath(
    path: string,
    opts?: { decrypt?: boolean },
  ): Promise<{ name: string; value: string; version: number; lastModified?: string }[]>;
}

export interface QueueMessage {
  type: string;
  payload: Record<string, unknown>;
  /** De-duplication id carried to the consumer for idempotency. */
  id?: string;
}

export interface SendOptions {
  /** 0-900 (SQS's own bound): the message is delivered no sooner (a retry's back-off); not on an ordered queue. */
  delaySeconds?: number;
  /** On an ordered queue (`ORDERED_QUEUES`): messages of one group are delivered one at a time, in the order sent. */
  group?: string;
}

export interface QueueSender {
  send(queue: QueueName, message: QueueMessage, opts?: SendOptions): Promise<void>;
}

export interface OutgoingEmail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** An iCalendar message (RFC 5546) the recipient's client files: sent as a raw MIME message. */
  invitation?: { method: 'REQUEST' | 'CANCEL'; ics: string };
}

/** Functions the runtime calls and waits for (their names reach the caller as `<NAME>_FUNCTION_NAME`). */
export const INVOKED_FUNCTIONS = ['browser-action'] as const;
export type InvokedFunction = (typeof INVOKED_FUNCTIONS)[number];

export interface FunctionInvoker {
  /** The function's answer; throws when it fails or does not answer within `timeoutMs`. */
  invoke(fn: InvokedFunction, payload: unknown, opts: { timeoutMs: number }): Promise<unknown>;
}

export interface Mailer {
  send(mail: OutgoingEmail): Promise<void>;
}

/**
 * SSM Parameter Store. Its client is imported at start (aws-params.ts), unlike the other ports': every
 * first request that carries a token reads the signing keys through it. Modules loaded with `import()`
 * must not import this file (they import port.ts): esbuild would then keep every SSM export.
 */
export const parameterStore = defineLoadedPort(async () => createSsmParameterStore());

/** SQS. */
export const queueSender = defineLoadedPort(async () => (await import('./aws-queue.ts')).createSqsQueueSender());

/** SES. */
export const mailer = defineLoadedPort(async () => (await import('./aws-mailer.ts')).createSesMailer());

/** Lambda Invoke (RequestResponse); locally the same handler in process (local/invoke.ts). */
export const functionInvoker = defineLoadedPort(async () => (await import('./aws-invoke.ts')).createLambdaInvoker());
