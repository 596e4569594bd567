import { queueSender, type OutgoingEmail, type QueueMessage } from '#shared/platform/ports.ts';
import type { QueueName } from '#shared/routes/groups.ts';

export async function enqueue(queue: QueueName, type: string, payload: Record<string, unknown>): Promise<string> {
  const message: QueueMessage = { id: crypto.randomUUID(), type, payload };
  await (await queueSender()).send(queue, message);
  return message.id!;
}

/** E-mail never goes out from a request: it is queued and the e-mail worker sends it. */
export const sendEmail = (mail: OutgoingEmail) => enqueue('email', 'email.send', { ...mail });
