import { createHash } from 'node:crypto';
import type { Variant } from './records.ts';

/**
 * A conversation's variant from its id alone: the first 32 bits of SHA-256(id) as a point in
 * [0, 100), B when it falls below shareB. Deterministic (a retried start picks the same), uniform
 * over random ids, and exact at the ends: shareB 0 never gives B, 100 always does.
 */
export function variantOf(conversationId: string, shareB: number): Variant {
  const point = (createHash('sha256').update(conversationId).digest().readUInt32BE(0) / 2 ** 32) * 100;
  return point < shareB ? 'B' : 'A';
}
