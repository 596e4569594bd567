import { timingSafeEqual, createHash } from 'node:crypto';
import { arr, ignored, jsonObject, obj, str, unixSeconds, type InboundEvent, type Receipt } from './event.ts';

/**
 * A WhatsApp Cloud API notification: `entry[].changes[].value.messages[]` are people writing
 * (several may come in one notification), `statuses[]` are delivery receipts of our own messages
 * (ignored). Text, button and interactive replies carry text; media, location and the like are
 * ignored (answered 200 so Meta does not retry them). Null when the body is not a JSON object.
 */
export function parseWhatsApp(rawBody: string): InboundEvent[] | null {
  const body = jsonObject(rawBody);
  if (!body) return null;
  if (body.object !== 'whatsapp_business_account') return [ignored()];
  const events: InboundEvent[] = [];
  for (const entry of arr(body.entry))
    for (const change of arr(obj(entry).changes)) {
      // Messages the business itself sent from the WhatsApp Business app come back as echoes.
      if (obj(change).field === 'smb_message_echoes') continue;
      const value = obj(obj(change).value);
      const own = digits(str(obj(value.metadata).display_phone_number));
      const names = new Map(
        arr(value.contacts).map((c) => [str(obj(c).wa_id), str(obj(obj(c).profile).name)] as const),
      );
      for (const st of arr(value.statuses)) {
        const r = receipt(obj(st));
        if (r) events.push({ kind: 'receipt', eventId: null, sender: null, text: '', receipt: r });
      }
      for (const m of arr(value.messages)) {
        const e = message(obj(m), names);
        events.push(own && e.sender && digits(e.sender) === own ? ignored(e.eventId) : e);
      }
    }
  return events.length ? events : [ignored()];
}

const RECEIPT_STATUS = { sent: 'Sent', delivered: 'Delivered', read: 'Read', failed: 'Failed' } as const;

/** A status callback: sent, delivered, read, or failed with `errors[]` (code, title, details). */
function receipt(st: Record<string, unknown>): Receipt | null {
  const id = str(st.id);
  const status = RECEIPT_STATUS[str(st.status) as keyof typeof RECEIPT_STATUS];
  if (!id || !status) return null;
  const e = obj(arr(st.errors)[0]);
  const details = str(obj(e.error_data).details);
  const title = str(e.title) ?? str(e.message);
  const error =
    status === 'Failed'
      ? `${title ?? 'Failed'}${e.code !== undefined ? ` (code ${String(e.code)})` : ''}${details && details !== title ? `: ${details}` : ''}`.slice(
          0,
          1000,
        )
      : null;
  return { platformMessageId: id, status, error };
}

const digits = (phone: string | undefined) => phone?.replace(/\D/g, '') || undefined;

function message(m: Record<string, unknown>, names: Map<string | undefined, string | undefined>): InboundEvent {
  const eventId = str(m.id) ?? null;
  const from = str(m.from);
  const text = (
    str(obj(m.text).body) ??
    str(obj(m.button).text) ??
    str(obj(obj(m.interactive).button_reply).title) ??
    str(obj(obj(m.interactive).list_reply).title) ??
    ''
  ).trim();
  if (!from || !text) return ignored(eventId);
  const name = names.get(from);
  const sentAt = unixSeconds(m.timestamp);
  return {
    kind: 'message',
    eventId,
    sender: from,
    ...(name ? { senderName: name } : {}),
    text,
    replyTo: { recipient: from },
    ...(sentAt !== undefined ? { sentAt } : {}),
  };
}

/**
 * The GET subscription handshake: Meta calls the webhook with `hub.mode=subscribe`,
 * `hub.verify_token` (the token the tenant configured) and `hub.challenge`; the webhook answers
 * 200 with the challenge as plain text when the token matches, else 403.
 */
export function whatsAppSubscription(
  query: Record<string, string | undefined>,
  verifyToken: string,
): { ok: true; challenge: string } | { ok: false } {
  const mode = query['hub.mode'];
  const token = query['hub.verify_token'] ?? '';
  const challenge = query['hub.challenge'] ?? '';
  if (mode !== 'subscribe' || !verifyToken || !token || !challenge || challenge.length > 256) return { ok: false };
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(token), digest(verifyToken)) ? { ok: true, challenge } : { ok: false };
}
