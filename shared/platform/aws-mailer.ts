import type { SESClient } from '@aws-sdk/client-ses';
import { config } from './config.ts';
import { loadSdk } from './lazy-sdk.ts';
import { rawMimeMessage } from './mime.ts';
import type { Mailer } from './ports.ts';

export async function createSesMailer(given?: SESClient): Promise<Mailer> {
  const { SESClient, SendEmailCommand, SendRawEmailCommand } = await loadSdk.ses();
  const client = given ?? new SESClient({});
  return {
    async send(mail) {
      // An invitation needs parts the simple form has no place for; Source keeps the sender policy's condition.
      if (mail.invitation) {
        await client.send(
          new SendRawEmailCommand({
            Source: config.mailFrom,
            Destinations: mail.to,
            RawMessage: { Data: Buffer.from(rawMimeMessage(config.mailFrom, mail), 'utf8') },
          }),
        );
        return;
      }
      await client.send(
        new SendEmailCommand({
          Source: config.mailFrom,
          Destination: { ToAddresses: mail.to },
          Message: {
            Subject: { Data: mail.subject, Charset: 'UTF-8' },
            Body: { Text: { Data: mail.text, Charset: 'UTF-8' }, Html: { Data: mail.html, Charset: 'UTF-8' } },
          },
        }),
      );
    },
  };
}
