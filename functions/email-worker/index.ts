import { sendEscalationNotice } from '#areas/conversations/escalation-mail.ts';
import { ESCALATION_NOTICE } from '#areas/conversations/escalation-notice.ts';
import { issueResetToken, RESET_REQUEST } from '#areas/identity/auth/passwords.ts';
import { mailer } from '#shared/platform/ports.ts';
import { EMAIL_SEND } from '#shared/queue/email.ts';
import { handles } from '#shared/queue/messages.ts';
import { queueWorker } from '#shared/queue/worker.ts';

/**
 * Sends queued e-mail through SES (locally: the outbox); a failed send is retried by SQS. The
 * password-reset request is answered at once by the auth function; its work (lookup, token, mail) runs here.
 */
export const handler = queueWorker('email', [
  handles(EMAIL_SEND, async (mail) => (await mailer()).send(mail)),
  handles(RESET_REQUEST, issueResetToken),
  handles(ESCALATION_NOTICE, sendEscalationNotice),
]);
