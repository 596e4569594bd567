import type { OutboundMessage, SendResult, WhatsAppConnection } from '../connection.ts';
import { endpoint } from './endpoints.ts';
import { call, chunks, refused } from './send-error.ts';

const MAX_TEXT = 4096;

/**
 * WhatsApp Cloud API: POST /{phone-number-id}/messages with a free-form text message. Meta refuses
 * a free-form message outside the 24-hour customer service window (error 131047); the proactive
 * message route checks the window before queueing (409 WINDOW_CLOSED), this is the platform's own net.
 */
export async function sendWhatsApp(connection: WhatsAppConnection, message: OutboundMessage): Promise<SendResult> {
  const url = `${endpoint('whatsapp')}/${encodeURIComponent(connection.settings.phoneNumberId)}/messages`;
  const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual', to: message.recipient };
  const bodies = message.template
    ? [{ ...envelope, type: 'template', template: templateBody(message.template) }]
    : chunks(message.text, MAX_TEXT).map((part) => ({
        ...envelope,
        type: 'text',
        text: { preview_url: false, body: part },
      }));
  let last = '';
  for (const body of bodies) {
    const answer = await call('whatsapp', url, {
      headers: { authorization: `Bearer ${connection.credentials.accessToken}`, 'content-type': 'application/json' },
      pace: { platform: 'whatsapp', bot: connection.id, chat: message.recipient },
      body: JSON.stringify(body),
    });
    const error = answer.body.error as { message?: unknown; code?: unknown } | undefined;
    if (answer.status !== 200 || error) {
      const text =
        typeof error?.message === 'string' ? `${error.message}${error.code ? ` (code ${error.code})` : ''}` : undefined;
      throw refused('whatsapp', answer, text);
    }
    last = String((answer.body.messages as { id?: unknown }[] | undefined)?.[0]?.id ?? '');
  }
  return { platformMessageId: last };
}

/** Meta's template object: the body's parameters in order, as text. */
const templateBody = (t: NonNullable<OutboundMessage['template']>) => ({
  name: t.name,
  language: { code: t.language },
  ...(t.parameters.length
    ? { components: [{ type: 'body', parameters: t.parameters.map((text) => ({ type: 'text', text })) }] }
    : {}),
});
