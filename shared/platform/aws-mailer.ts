import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { config } from './config.ts';
import type { Mailer } from './ports.ts';

export function createSesMailer(client = new SESClient({})): Mailer {
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
