import type { QueueName } from '#shared/routes/groups.ts';

/**
 * A port: the seam between domain code and a service that has a stand-in (an AWS service, an outside
 * provider). Calling it gives the stand-in installed, else the deployed adapter, made on first use, so
 * a function that never sends e-mail never loads an SES client. The local server and the tests put
 * their stand-ins in place with `install` before serving: the one way the code swaps a service.
 * (AWS services whose stand-in is a server, DynamoDB Local and the S3 stand-in, keep the real client:
 * the SDK's own `AWS_ENDPOINT_URL_<SERVICE>` setting points it there.)
 */
export interface Port<T, Get = T> {
  (): Get;
  /** Puts a stand-in in place; undefined brings back the deployed adapter (made anew on next use). */
  install(standIn: T | undefined): void;
}

/** A port whose adapter is made synchronously (the DynamoDB and S3 clients every request uses). */
export function definePort<T>(make: () => T): Port<T> {
  let current: T | undefined;
  const get = () => {
    current ??= make();
    return current;
  };
  return Object.assign(get, {
    install: (standIn: T | undefined) => {
      current = standIn;
    },
  });
}

/** A port whose adapter loads on first use (an SDK kept beside the bundle, lib/bundling.ts); a failed load is retried. */
export function defineLoadedPort<T>(load: () => Promise<T>): Port<T, Promise<T>> {
  let current: Promise<T> | undefined;
  const get = () => {
    if (!current) {
      current = load();
      current.catch(() => (current = undefined));
    }
    return current;
  };
  return Object.assign(get, {
    install: (standIn: T | undefined) => {
      current = standIn === undefined ? undefined : Promise.resolve(standIn);
    },
  });
}

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

export interface QueueSender {
  /** `delaySeconds` (0-900, SQS's own bound): the message is delivered no sooner (a retry's back-off). */
  send(queue: QueueName, message: QueueMessage, opts?: { delaySeconds?: number }): Promise<void>;
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

/** SSM Parameter Store. */
export const parameterStore = defineLoadedPort(async () => (await import('./aws-params.ts')).createSsmParameterStore());

/** SQS. */
export const queueSender = defineLoadedPort(async () => (await import('./aws-queue.ts')).createSqsQueueSender());

/** SES. */
export const mailer = defineLoadedPort(async () => (await import('./aws-mailer.ts')).createSesMailer());

/** Lambda Invoke (RequestResponse); locally the same handler in process (local/invoke.ts). */
export const functionInvoker = defineLoadedPort(async () => (await import('./aws-invoke.ts')).createLambdaInvoker());
