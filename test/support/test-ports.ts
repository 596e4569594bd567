import type { SQSEvent } from 'aws-lambda';
import { memoryParameterStore, recordingMailer } from '#local/memory-ports.ts';
import { memoryVectorStore } from '#local/knowledge-vectors.ts';
import { vectorStore } from '#areas/knowledge/vectors/port.ts';
import { paymentProviders } from '#areas/billing/gateway.ts';
import { localPaymentProviders } from '#local/providers/payment-provider.ts';
import { generateSigningKeyParams, resetKeyCache, signingParams } from '#shared/auth/signing-keys.ts';
import { functionInvoker, mailer, parameterStore, queueSender, type QueueMessage } from '#shared/platform/ports.ts';
import { localInvoker } from '#local/invoke.ts';
import { importWorker } from '#local/local-queue.ts';
import { workerOf } from '#shared/queue/batching.ts';
import type { QueueName } from '#shared/routes/groups.ts';

export const testMailer = recordingMailer();
export const sentMessages: { queue: QueueName; message: QueueMessage }[] = [];
export let testParams = memoryParameterStore();
export const testVectors = memoryVectorStore();

/** Runs the queue's real worker on the message before `send` resolves: tests see the effect at once. */
async function deliver(queue: QueueName, message: QueueMessage) {
  sentMessages.push({ queue, message });
  const handler = await importWorker(queue);
  const messageId = crypto.randomUUID();
  const out = await handler({ Records: [{ messageId, body: JSON.stringify(message) } as SQSEvent['Records'][number]] });
  if (out?.batchItemFailures.length) throw new Error(`Worker ${workerOf(queue)} failed message ${message.type}`);
}

/** The tests' queue: each message's worker runs before `send` resolves. */
export const testQueue = { send: deliver };

/** Memory SSM with a fresh signing key, synchronous queues, an e-mail outbox, and the local payment providers. */
export async function installTestPorts() {
  const keysParams = await generateSigningKeyParams();
  const names = signingParams();
  testParams = memoryParameterStore({
    [names.publicJwks]: keysParams.publicJwks,
    [names.privateJwk]: keysParams.privateJwk,
  });
  resetKeyCache();
  parameterStore.install(testParams);
  mailer.install(testMailer);
  functionInvoker.install(localInvoker);
  queueSender.install(testQueue);
  paymentProviders.install(localPaymentProviders);
  vectorStore.install(testVectors);
}
