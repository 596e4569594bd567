import type { SESClient } from '@aws-sdk/client-ses';
import { config } from './config.ts';
import { loadSdk } from './lazy-sdk.ts';
import type { Mailer } from './ports.ts';

export async function createSesMailer(given?: SESClient): Promise<Mailer> {
  const { SESClient, SendEmailCommand } = await loadSdk.ses();
  const client = given ?? new SESClient({});
  return {
    async send(mail) {
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
