import { putItem, type TransactItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { lastInboundKey } from './records.ts';

/** WhatsApp: a free-form message may go only this long after the person's last message. */
export const WHATSAPP_WINDOW_MS = 24 * 3600 * 1000;
/** A channel user's last-inbound time is kept as long as the window could matter, and then some. */
const INBOUND_TTL_SECONDS = 30 * 86_400;

/** The person wrote to the connection at `now` (the webhook writes it with the event's claim). */
export const lastInboundWrite = (tenantId: string, channelId: string, user: string, now: Date): TransactItem =>
  putItem({
    ...lastInboundKey(tenantId, channelId, user),
    at: now.toISOString(),
    ttl: Math.floor(now.getTime() / 1000) + INBOUND_TTL_SECONDS,
  });

/** When the person last wrote to this connection (any channel; WhatsApp's window starts there). */
export async function lastInboundAt(tenantId: string, channelId: string, user: string): Promise<string | null> {
  const found = await get<{ at?: string }>(lastInboundKey(tenantId, channelId, user), { consistent: true });
  return found?.at ?? null;
}

/** Whether WhatsApp's 24-hour window with the person is open at `at` (ms). */
export async function windowOpen(tenantId: string, channelId: string, recipient: string, at: number) {
  const last = await lastInboundAt(tenantId, channelId, recipient);
  return !!last && at - Date.parse(last) <= WHATSAPP_WINDOW_MS;
}
