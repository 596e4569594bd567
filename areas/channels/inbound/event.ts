/**
 * One inbound platform event, reduced to what the connector acts on:
 * - `message`: a person wrote `text`; the answer goes to `replyTo`;
 * - `challenge`: a handshake the webhook answers with `challenge` (Slack url_verification);
 * - `ping`: a liveness check the webhook answers in the platform's way (Discord PING);
 * - `ignored`: anything else (bot echoes, edits, delivery statuses, media): answered 200, not turned into a turn.
 * `eventId` is the platform's own id of the event, the dedupe key (providers retry): Slack event_id,
 * Teams activity id, WhatsApp message id, Telegram update_id, Discord interaction id. It is unique only
 * per app/bot, so the dedupe key must also name the connection.
 */
export interface InboundEvent {
  kind: 'message' | 'challenge' | 'ping' | 'ignored' | 'receipt';
  eventId: string | null;
  /** The channel user (Slack/Teams/Telegram/Discord user id, WhatsApp phone number in international form). */
  sender: string | null;
  senderName?: string;
  text: string;
  /** Where the answer goes, as `sendToChannel`'s message takes it. */
  replyTo?: ReplyTarget;
  challenge?: string;
  /**
   * When the platform says the person wrote (unix seconds), where its payload carries it: WhatsApp
   * message `timestamp`, Teams activity `timestamp`, Telegram message `date`. Those platforms sign
   * no timestamp, so this is what tells a replay from a retry once the dedupe claim has expired.
   */
  sentAt?: number;
  /**
   * The platform's identity of the message itself, where it differs from the event's: Slack
   * `channel:ts`, Teams `conversation:activity id`, Telegram `chat:message_id`. Slack may deliver one
   * message as several events with different `event_id`s, so the message is claimed as well as the event.
   */
  messageId?: string;
  /** A delivery receipt of a message we sent (WhatsApp `statuses[]`). */
  receipt?: Receipt;
}

export interface Receipt {
  platformMessageId: string;
  status: 'Sent' | 'Delivered' | 'Read' | 'Failed';
  /** The platform's reason for a failure, with its code. */
  error: string | null;
}

/** The recipient and reply context an answer to an inbound message needs. */
interface ReplyTarget {
  /** Slack channel id, Teams conversation id, WhatsApp phone, Telegram chat id, Discord channel id. */
  recipient: string;
  /** Slack thread_ts, Teams activity id replied to. */
  threadId?: string;
  /** Teams: the Bot Framework service URL the activity came from (replies go there). */
  serviceUrl?: string;
  /** Discord: the interaction token a follow-up message is posted with (valid 15 minutes). */
  interactionToken?: string;
}

export const ignored = (eventId: string | null = null): InboundEvent => ({
  kind: 'ignored',
  eventId,
  sender: null,
  text: '',
});

/** The body as a JSON object, or null (not JSON, or not an object). */
export function jsonObject(rawBody: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(rawBody);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length ? v : undefined);
/** Telegram and Discord ids may be numbers (Telegram) or snowflake strings (Discord). */
export const id = (v: unknown): string | undefined =>
  typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : str(v);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Unix seconds as a number or a digit string (WhatsApp sends `"1700000000"`), or undefined. */
export const unixSeconds = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && /^\d{1,12}$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
};

/** An ISO 8601 time (Bot Framework's `timestamp`) as unix seconds, or undefined. */
export const isoSeconds = (v: unknown): number | undefined => {
  const ms = typeof v === 'string' && v.length <= 40 ? Date.parse(v) : Number.NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
};
