import { lastInboundWrite } from '#areas/channels/for-connector.ts';
import { commitChange, deleteItem, orConflict, putNew } from '#shared/data/commit.ts';
import { duplicateEvent } from './errors.ts';
import { inboundClaimKey, messageClaimKey } from './records.ts';

/**
 * How old an event may be and still be taken. Meta retries a notification for up to 7 days, the
 * longest of the platforms (Slack ~1 h, Telegram keeps an update 24 h, Teams and Discord never
 * retry); a day more for the platforms' clocks. An older event can only be a replay.
 */
export const REPLAY_WINDOW_SECONDS = 8 * 86_400;
/**
 * The claim outlives the window (and a clock a day ahead of ours), so an event is refused as a
 * duplicate for as long as it is not yet refused as stale: no moment when a replay runs again.
 */
const CLAIM_TTL_SECONDS = REPLAY_WINDOW_SECONDS + 86_400;

/** One inbound message: the platform's event id and, where it has one, the message's own id (as `outsideIdKeyPart` gives them). */
export interface InboundClaim {
  tenantId: string;
  channelId: string;
  eventId: string;
  messageId?: string;
}

const claimKeys = (c: InboundClaim) => [
  inboundClaimKey(c.tenantId, c.channelId, c.eventId),
  ...(c.messageId ? [messageClaimKey(c.tenantId, c.channelId, c.messageId)] : []),
];

/**
 * The message claimed (its event and its message id) with the person's last-inbound time, in one
 * write: false when either claim is taken (another event id of a message already taken, or a retry).
 */
export async function claimInbound(c: InboundClaim, sender: string, now: Date): Promise<boolean> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const claimed = { receivedAt: now.toISOString(), ttl: nowSeconds + CLAIM_TTL_SECONDS };
  const duplicate = duplicateEvent();
  try {
    await commitChange(
      [
        ...claimKeys(c).map((key) => orConflict(putNew({ ...key, ...claimed }), duplicate)),
        lastInboundWrite(c.tenantId, c.channelId, sender, now),
      ],
      null,
    );
  } catch (err) {
    if (err === duplicate) return false;
    throw err;
  }
  return true;
}

/** The message was not processed (not queued, skipped, or parked): the platform's redelivery of it is taken again. */
export const releaseInbound = (c: InboundClaim) =>
  commitChange(
    claimKeys(c).map((key) => deleteItem(key)),
    null,
  );
