import { mailer, type OutgoingEmail } from '#shared/platform/ports.ts';
import { queueWorker } from '#shared/queue/worker.ts';
// The reset request is answered at once by the auth function; its work (lookup, token, mail) runs here.
import { issueResetToken, RESET_REQUEST } from '#areas/identity/auth/passwords.ts';

/** Sends queued e-mail through SES (locally: the outbox). A failed send is retried by SQS. */
export const handler = queueWorker('email', {
  'email.send': async (payload) => {
    await (await mailer()).send(payload as unknown as OutgoingEmail);
  },
  [RESET_REQUEST]: issueResetToken,
});
