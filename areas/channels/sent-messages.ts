import { writeItem } from '#shared/data/write-one.ts';
import { putItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { sentMessageKey, type SentMessagePointer } from './records.ts';

/**
 * A message we sent is remembered by the platform's id of it, so the platform's later report
 * (WhatsApp status callbacks: sent, delivered, read, failed with its code) finds the proactive
 * message or the conversation message it is about (the connector applies it).
 */
const POINTER_TTL_SECONDS = 30 * 86_400;

export async function rememberSent(
  tenantId: string,
  channelId: string,
  platformMessageId: string,
  pointer: SentMessagePointer,
) {
  if (!platformMessageId) return;
  await writeItem(
    putItem({
      ...sentMessageKey(tenantId, channelId, platformMessageId),
      ...pointer,
      ttl: Math.floor(Date.now() / 1000) + POINTER_TTL_SECONDS,
    }),
  );
}

/** What the platform's id of a sent message points at; undefined for one we do not know (sent elsewhere, or expired). */
export const sentPointer = (tenantId: string, channelId: string, platformMessageId: string) =>
  get<SentMessagePointer>(sentMessageKey(tenantId, channelId, platformMessageId));
