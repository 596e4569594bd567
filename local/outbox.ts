import { join } from 'node:path';
import type { Mailer, OutgoingEmail } from '#shared/platform/ports.ts';
import { readJson, serialized, writeJson } from './json-file.ts';

export type SentEmail = OutgoingEmail & { sentAt: string };

/**
 * The local SES: every e-mail is appended, in send order, to LOCAL_DATA_DIR/outbox.json instead
 * of being delivered. `GET /_local/outbox` serves the file, so tests and developers can read
 * verification codes and reset links.
 */
export function fileOutbox(dataDir: string): Mailer & { list(): SentEmail[] } {
  const file = join(dataDir, 'outbox.json');
  const exclusive = serialized();
  return {
    send: (mail) =>
      exclusive(() => {
        const sent: SentEmail = {
          to: [...mail.to],
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          ...(mail.invitation ? { invitation: mail.invitation } : {}),
          sentAt: new Date().toISOString(),
        };
        writeJson(file, [...readJson<SentEmail[]>(file, []), sent]);
      }),
    list: () => readJson<SentEmail[]>(file, []),
  };
}
