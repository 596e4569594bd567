import type { PaymentProviders } from '#areas/billing/gateway.ts';
import type { QueueName } from '#shared/routes/groups.ts';

/**
 * The seams between domain code and AWS services (or outside providers) that have a local
 * stand-in. In Lambda the AWS implementations are used; the local server installs its own before
 * serving.
 */
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
  send(queue: QueueName, message: QueueMessage): Promise<void>;
}

export interface OutgoingEmail {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(mail: OutgoingEmail): Promise<void>;
}

export interface Ports {
  params: ParameterStore;
  queue: QueueSender;
  mailer: Mailer;
  /** The payment providers' adapters (billing's contract); no default: see `paymentProviders`. */
  payments: PaymentProviders;
}

const installed: Partial<Ports> = {};

/** The local server and tests install stand-ins; anything not installed falls back to AWS. */
export function installPorts(ports: Partial<Ports>) {
  Object.assign(installed, ports);
}

// Each getter loads its AWS client on first use, and only in the functions that call it,
// so a function that never sends e-mail bundles no SES client.
export async function parameterStore(): Promise<ParameterStore> {
  return (installed.params ??= await (await import('./aws-params.ts')).createSsmParameterStore());
}

export async function queueSender(): Promise<QueueSender> {
  return (installed.queue ??= await (await import('./aws-queue.ts')).createSqsQueueSender());
}

export async function mailer(): Promise<Mailer> {
  return (installed.mailer ??= await (await import('./aws-mailer.ts')).createSesMailer());
}

/**
 * The installed payment providers, or undefined: unlike the AWS ports there is no default to load
 * (billing answers 503 PAYMENTS_NOT_CONFIGURED), so no deployed bundle carries a stand-in.
 */
export const paymentProviders = (): PaymentProviders | undefined => installed.payments;
