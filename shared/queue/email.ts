import * as z from 'zod/mini';
import type { OutgoingEmail } from '#shared/platform/ports.ts';
import { enqueue, messageKind } from './messages.ts';

/** An e-mail to send: queued by requests, sent by the e-mail worker through the mail port. */
export const EMAIL_SEND = messageKind('email', 'email.send', () =>
  z.object({
    to: z.array(z.string()).check(z.minLength(1)),
    subject: z.string(),
    text: z.string(),
    html: z.string(),
    invitation: z.optional(
      z.object({ method: z.enum(['REQUEST', 'CANCEL']), ics: z.string().check(z.maxLength(100_000)) }),
    ),
  }),
);

/** E-mail never goes out from a request: it is queued and the e-mail worker sends it. */
export const sendEmail = (mail: OutgoingEmail) => enqueue(EMAIL_SEND, mail);
