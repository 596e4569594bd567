import type { z } from 'zod/mini';
import { emailsOfUsersWith } from '#areas/identity/for-conversations.ts';
import { notFound } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import { mailer, type OutgoingEmail } from '#shared/platform/ports.ts';
import { logger } from '#shared/runtime/logger.ts';
import type { ESCALATION_NOTICE } from './escalation-notice.ts';
import type { ConversationRecord, MessageRecord } from './records.ts';
import { readSettings } from './settings.ts';
import { readConversation, readMessages } from './store.ts';

/** Who is told when the tenant names nobody: the staff who can answer (reply, hand back). */
export const NOTIFIED_PERMISSION = 'conversations:write';
const LAST_MESSAGES = 10;
const MESSAGE_CHARS = 500;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const oneLine = (s: string, max: number) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
const WHO = { visitor: 'Visitor', agent: 'Agent', human: 'Staff', system: 'System' } as const;

/** Where staff open the conversation: `INBOX_URL` (the web app's inbox), else the public base URL's `/inbox`. */
export const conversationLink = (id: string) => {
  const url = new URL(process.env.INBOX_URL || `${config.publicBaseUrl}/inbox`);
  url.searchParams.set('conversationId', id);
  return url.toString();
};

/** The notice's text: what the visitor and agent wrote is shown as quoted data, escaped in the HTML. */
export function escalationEmail(to: string[], c: ConversationRecord, messages: MessageRecord[]): OutgoingEmail {
  const reason = c.escalationReason ?? 'Escalated';
  const visitor = [c.visitor?.name, c.visitor?.email].filter(Boolean).join(' ') || 'A visitor';
  const link = conversationLink(c.id);
  const lines = messages.map((m) => ({
    who: WHO[m.role],
    at: m.createdAt,
    text: m.text.length > MESSAGE_CHARS ? `${m.text.slice(0, MESSAGE_CHARS - 1)}…` : m.text,
  }));
  return {
    to,
    subject: oneLine(`Conversation handed to a person: ${reason}`, 150),
    text: [
      `${visitor} needs a person (agent ${c.agentName}, ${c.channel}).`,
      `Reason: ${reason}`,
      '',
      'Last messages:',
      ...lines.map((l) => `- ${l.who} (${l.at}): ${l.text.replace(/\n/g, '\n  ')}`),
      '',
      `Open the conversation: ${link}`,
    ].join('\n'),
    html: [
      `<p>${escapeHtml(visitor)} needs a person (agent ${escapeHtml(c.agentName)}, ${escapeHtml(c.channel)}).</p>`,
      `<p><strong>Reason:</strong> ${escapeHtml(reason)}</p>`,
      '<p>Last messages:</p><ul>',
      ...lines.map((l) => `<li><strong>${l.who}</strong> (${l.at}): ${escapeHtml(l.text)}</li>`),
      '</ul>',
      `<p><a href="${escapeHtml(link)}">Open the conversation</a></p>`,
    ].join(''),
  };
}

/**
 * The e-mail worker's part: the conversation as it is now (an erased one is told to nobody), the
 * tenant's addresses or the staff holding the permission, the last messages, one e-mail.
 */
export async function sendEscalationNotice(p: z.output<ReturnType<typeof ESCALATION_NOTICE.schema>>) {
  let c: ConversationRecord;
  try {
    c = await readConversation(p.tenantId, p.conversationId, true);
  } catch (err) {
    if (notFound.is(err)) return { sent: false };
    throw err;
  }
  const settings = await readSettings(p.tenantId);
  const to = settings.escalationEmails ?? (await emailsOfUsersWith(p.tenantId, NOTIFIED_PERMISSION));
  if (!to.length) {
    logger.warn('escalation notice: nobody to tell', { tenantId: p.tenantId, conversationId: p.conversationId });
    return { sent: false };
  }
  const messages = await readMessages(p.tenantId, p.conversationId, { limit: LAST_MESSAGES, newest: true });
  await (await mailer()).send(escalationEmail(to, c, messages));
  return { sent: true };
}
