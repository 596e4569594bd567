import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/data/keys.ts';
import { getMany } from '#shared/data/read.ts';
import { keyId } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { logger } from '#shared/runtime/logger.ts';
import type { ChatMessage } from './providers/port.ts';

/**
 * Responses kept for `previous_response_id` and `item_reference` (what the Vercel AI SDK's default
 * provider sends for an earlier assistant turn): one item per response in the tenant's partition,
 * holding the conversation up to and including its output, for 30 days (the table's TTL), as
 * OpenAI keeps them. A response, its output items and their ids are derived from the request id, so
 * any reference finds its response with one read.
 */
export const STORED_RESPONSE_DAYS = 30;
/** Below DynamoDB's 400 KB item limit with room for the keys: a longer conversation is not kept. */
export const STORED_RESPONSE_MAX_CHARS = 300_000;

/** A response's output item, as the wire shows it and as a later input may repeat it. */
export type OutputItem =
  | { type: 'message'; id: string; text: string }
  | { type: 'function_call'; id: string; call_id: string; name: string; arguments: string };

export interface StoredResponse {
  /** The conversation a `previous_response_id` continues: its input (instructions excluded) and output. */
  conversation: ChatMessage[];
  output: OutputItem[];
}

const HEX = /^[0-9a-f]{32}$/;
export const responseHex = (requestId: string) => requestId.replaceAll('-', '');
export const responseId = (requestId: string) => `resp_${responseHex(requestId)}`;
export const outputItemId = (requestId: string, kind: 'msg' | 'fc', index: number) =>
  `${kind}_${responseHex(requestId)}_${index}`;

/** The response a response id or output item id names (null when it is not one of ours). */
export function responseOf(id: string): string | null {
  const hex = /^resp_([0-9a-f]{32})$/.exec(id)?.[1] ?? /^(?:msg|fc)_([0-9a-f]{32})_\d{1,4}$/.exec(id)?.[1];
  return hex && HEX.test(hex) ? hex : null;
}

const storedKey = (tenantId: string, hex: string) => keys.tenantItem(tenantId, 'LLM_RESPONSE', hex);

/** Kept after the answer (the caller passes it to `later`); a conversation too long to keep is logged and skipped. */
export async function saveResponse(tenantId: string, requestId: string, stored: StoredResponse, now = Date.now()) {
  const body = JSON.stringify(stored);
  if (body.length > STORED_RESPONSE_MAX_CHARS) {
    logger.warn('response too long to store', { requestId, chars: body.length });
    return;
  }
  await ddb().send(
    new PutCommand({
      TableName: config.tableName,
      Item: {
        ...storedKey(tenantId, responseHex(requestId)),
        stored: body,
        createdAt: new Date(now).toISOString(),
        ttl: Math.floor(now / 1000) + STORED_RESPONSE_DAYS * 86_400,
      },
    }),
  );
}

/** How long a reference waits for a response written just after its answer (another instance may still be writing it). */
const MISS_RETRIES_MS = [50, 100, 200, 400];

/**
 * The stored responses these ids name, by hex; a missing one is absent from the map. An expired
 * item that the TTL has not yet removed is treated as gone.
 */
export async function loadResponses(tenantId: string, hexes: string[], now = Date.now()) {
  const found = new Map<string, StoredResponse>();
  let missing = [...new Set(hexes)];
  for (let attempt = 0; missing.length; attempt++) {
    const items = await getMany<{ stored: string; ttl: number }>(
      missing.map((h) => storedKey(tenantId, h)),
      { consistent: true },
    );
    for (const hex of missing) {
      const item = items.get(keyId(storedKey(tenantId, hex)));
      if (item && item.ttl * 1000 > now) found.set(hex, JSON.parse(item.stored) as StoredResponse);
    }
    missing = missing.filter((h) => !found.has(h));
    const wait = MISS_RETRIES_MS[attempt];
    if (!missing.length || wait === undefined) break;
    await new Promise((r) => setTimeout(r, wait));
  }
  return found;
}
