import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { updateItem, type Write } from '#shared/data/commit.ts';
import { isConditionFailure, itemOfFailure, rawNumber } from '#shared/data/condition-failure.ts';
import type { Key } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { conversationBusy } from './errors.ts';
import type { CapKind } from './visitor-caps.ts';

/**
 * Token caps reserved before a turn and settled with its answer (docs/decisions/conversations.md,
 * "Visitor caps"), as the gateway holds a model call's worst case. A spend counter keeps `tokens`
 * (what answered turns spent), `committed` (that plus the holds of turns running now) and `running`.
 * A turn is let in while the settled tokens are under the cap and either its worst case fits beside
 * the running turns' holds, or no turn is running: so a cap is passed by at most one turn, the one
 * let in alone. One that finds the room held by running turns waits for them to settle.
 */
export const CAP_HOLD = {
  /** A turn's worst case: five model calls over a widget's short context and answers. */
  turnTokens: 6_000,
  waitMs: 60_000,
  firstWaitMs: 25,
  maxWaitMs: 1_000,
};

const KEEP_SECONDS = 3 * 86_400;

export interface CapCounter {
  key: Key;
  cap: number | null;
  kind: CapKind;
}

const holdName = (id: string) => `h_${id}`;
const ttlOf = (now: number) => Math.floor(now / 1000) + KEEP_SECONDS;

type Taken = { kind: 'held' } | { kind: 'reached' } | { kind: 'busy' };

async function take(c: CapCounter & { cap: number }, id: string, now: number): Promise<Taken> {
  const w = CAP_HOLD.turnTokens;
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: c.key,
        UpdateExpression: 'SET #h = :w, #ttl = :ttl ADD committed :w, running :one',
        // On its own hold not being there yet too: a retried write whose first attempt landed holds once.
        ConditionExpression:
          'attribute_not_exists(#h) AND (attribute_not_exists(tokens) OR tokens < :cap) AND ' +
          '(attribute_not_exists(committed) OR committed <= :room OR attribute_not_exists(running) OR running <= :zero)',
        ExpressionAttributeNames: { '#h': holdName(id), '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':w': w,
          ':one': 1,
          ':zero': 0,
          ':cap': c.cap,
          ':room': c.cap - w,
          ':ttl': ttlOf(now),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { kind: 'held' };
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    const item = itemOfFailure(err);
    if (holdName(id) in item) return { kind: 'held' };
    return rawNumber(item.tokens) >= c.cap ? { kind: 'reached' } : { kind: 'busy' };
  }
}

async function giveBack(key: Key, id: string) {
  await ddb()
    .send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: key,
        UpdateExpression: 'REMOVE #h ADD committed :back, running :minus',
        ConditionExpression: 'attribute_exists(#h)',
        ExpressionAttributeNames: { '#h': holdName(id) },
        ExpressionAttributeValues: { ':back': -CAP_HOLD.turnTokens, ':minus': -1 },
      }),
    )
    .catch((err) => {
      if (!isConditionFailure(err)) throw err;
    });
}

export interface CapHolds {
  /** The writes that replace the holds by the turn's real use; counters without a cap just count it. */
  settle: (tokens: number) => Write[];
  /** Gives back what was not settled (the turn failed, or ran no model); nothing once settled. */
  release: () => Promise<void>;
}

/**
 * Holds every capped counter for one turn, or none: a counter whose cap is spent is `reached`; one
 * whose room is held by running turns makes this turn give back what it holds and wait (so two turns
 * never wait on each other), until the caps' wait ends in 409 CONVERSATION_BUSY.
 */
export async function holdCaps(counters: CapCounter[], now = Date.now()): Promise<CapHolds | { reached: CapKind }> {
  const id = randomUUID();
  const capped = counters.filter((c): c is CapCounter & { cap: number } => c.cap !== null);
  const deadline = Date.now() + CAP_HOLD.waitMs;
  for (let wait = CAP_HOLD.firstWaitMs; ; wait = Math.min(CAP_HOLD.maxWaitMs, wait * 2)) {
    const held: CapCounter[] = [];
    let refused: { kind: 'reached' | 'busy'; cap: CapKind } | null = null;
    for (const c of capped) {
      const t = await take(c, id, now);
      if (t.kind === 'held') held.push(c);
      else {
        refused = { kind: t.kind, cap: c.kind };
        break;
      }
    }
    if (!refused) return holdsOf(counters, held, id, now);
    await Promise.all(held.map((c) => giveBack(c.key, id)));
    if (refused.kind === 'reached') return { reached: refused.cap };
    if (Date.now() + wait > deadline) throw conversationBusy();
    await sleep(wait / 2 + Math.random() * wait);
  }
}

function holdsOf(counters: CapCounter[], held: CapCounter[], id: string, now: number): CapHolds {
  let released = false;
  return {
    settle: (tokens) =>
      counters.flatMap((c) => {
        const isHeld = held.includes(c);
        if (!isHeld && tokens <= 0) return [];
        return [
          updateItem(
            c.key,
            { ttl: ttlOf(now) },
            {
              add: {
                tokens: Math.max(0, tokens),
                committed: Math.max(0, tokens) - (isHeld ? CAP_HOLD.turnTokens : 0),
                ...(isHeld ? { running: -1 } : {}),
              },
              ...(isHeld ? { remove: [holdName(id)] } : {}),
            },
          ),
        ];
      }),
    release: async () => {
      if (released) return;
      released = true;
      await Promise.all(held.map((c) => giveBack(c.key, id)));
    },
  };
}
