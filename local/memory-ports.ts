import type { Mailer, OutgoingEmail, ParameterStore, QueueMessage, QueueSender } from '#shared/platform/ports.ts';

/** In-memory stand-ins with the same interfaces as SSM, SQS and SES (tests and the local store's core). */
export function memoryParameterStore(
  initial: Record<string, string> = {},
): ParameterStore & { dump(): Record<string, { value: string; version: number }> } {
  const params = new Map<string, { value: string; version: number; lastModified: string }>();
  for (const [k, v] of Object.entries(initial))
    params.set(k, { value: v, version: 1, lastModified: new Date().toISOString() });
  return {
    async get(name) {
      const p = params.get(name);
      return p ? { value: p.value, version: p.version } : null;
    },
    async put(name, value, opts = {}) {
      const existing = params.get(name);
      if (existing && opts.overwrite === false) {
        throw Object.assign(new Error('Parameter already exists'), { name: 'ParameterAlreadyExists' });
      }
      const version = (existing?.version ?? 0) + 1;
      params.set(name, { value, version, lastModified: new Date().toISOString() });
      return { version };
    },
    async delete(name) {
      return params.delete(name);
    },
    async listByPath(path) {
      const prefix = path.endsWith('/') ? path : `${path}/`;
      return [...params.entries()]
        .filter(([name]) => name.startsWith(prefix))
        .map(([name, p]) => ({ name, value: p.value, version: p.version, lastModified: p.lastModified }));
    },
    dump: () => Object.fromEntries(params),
  };
}

export function recordingQueue(): QueueSender & { sent: { queue: string; message: QueueMessage }[] } {
  const sent: { queue: string; message: QueueMessage }[] = [];
  return {
    sent,
    async send(queue, message) {
      sent.push({ queue, message });
    },
  };
}

export function recordingMailer(): Mailer & { outbox: (OutgoingEmail & { sentAt: string })[] } {
  const outbox: (OutgoingEmail & { sentAt: string })[] = [];
  return {
    outbox,
    async send(mail) {
      outbox.push({ ...mail, sentAt: new Date().toISOString() });
    },
  };
}
