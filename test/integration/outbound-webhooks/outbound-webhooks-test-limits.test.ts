import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deliverAttempt } from '#areas/outbound-webhooks/deliver.ts';
import type { DeliveryAttempt } from '#areas/outbound-webhooks/messages.ts';
import { queueSender, type QueueMessage } from '#shared/platform/ports.ts';
import { inOneRateWindow, newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { webhookReceiver } from '#test/support/webhook-receiver.ts';

vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');

const BASE = '/api/webhook-subscriptions';
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;

beforeAll(async () => {
  receiver = await webhookReceiver();
});
afterAll(() => receiver.close());

async function tenantWithSubscriptions(n: number) {
  const owner = await tokenFor({ tenantId: await newTenant() });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await invoke('POST', BASE, {
      token: owner,
      body: { url: receiver.url(`/limits-${crypto.randomUUID()}`), eventTypes: ['message.created'] },
    });
    expect(res).toAnswer(201);
    ids.push(res.json.result.id);
  }
  return { owner, ids };
}
const test = (owner: string, id: string) => invoke('POST', `${BASE}/${id}/test`, { token: owner });

/** Runs `body` with deliveries queued but never sent (each stays in flight), handing back what was queued. */
async function withDeliveriesHeld<T>(body: (queued: QueueMessage[]) => Promise<T>) {
  const real = await queueSender();
  const queued: QueueMessage[] = [];
  queueSender.install({ send: async (_q, message) => void queued.push(message) });
  try {
    return await body(queued);
  } finally {
    queueSender.install(real);
  }
}

describe('POST /api/webhook-subscriptions/{id}/test limits', () => {
  it('a subscription takes 5 tests a minute; the 6th is 429 RATE_LIMITED with Retry-After and sends nothing', async () => {
    const { owner, ids } = await tenantWithSubscriptions(1);
    const before = receiver.received.length;
    const answers = await inOneRateWindow(async () => {
      const out = [];
      for (let i = 0; i < 6; i++) out.push(await test(owner, ids[0]!));
      return out;
    });
    for (const res of answers.slice(0, 5)) expect(res).toAnswer(202);
    expect(answers[5]).toAnswer(429, 'RATE_LIMITED');
    expect(Number(answers[5]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(receiver.received.length - before).toBe(5);
  });

  it('a tenant takes 20 tests a minute across its subscriptions', async () => {
    const { owner, ids } = await tenantWithSubscriptions(5);
    const answers = await inOneRateWindow(async () => {
      const out = [];
      for (const id of ids.slice(0, 5)) for (let i = 0; i < 4; i++) out.push(await test(owner, id));
      out.push(await test(owner, ids[4]!));
      return out;
    });
    for (const res of answers.slice(0, 20)) expect(res).toAnswer(202);
    expect(answers[20]).toAnswer(429, 'RATE_LIMITED');
    expect(answers[20]!.headers['retry-after']).toEqual(expect.any(String));
  });

  it('at most 3 test deliveries of a subscription are in flight; one delivered frees its place', async () => {
    const { owner, ids } = await tenantWithSubscriptions(1);
    await withDeliveriesHeld(async (queued) => {
      for (let i = 0; i < 3; i++) expect(await test(owner, ids[0]!)).toAnswer(202);
      const refused = await test(owner, ids[0]!);
      expect(refused).toAnswer(429, 'RATE_LIMITED');
      expect(refused.json.error.message).toMatch(/in flight|not yet delivered/i);
      expect(refused.headers['retry-after']).toEqual(expect.any(String));
      expect(queued).toHaveLength(3);
      await deliverAttempt(queued[0]!.payload as DeliveryAttempt);
      expect(await test(owner, ids[0]!)).toAnswer(202);
      expect(queued).toHaveLength(4);
    });
  });
});
