import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_ATTEMPTS } from '#areas/outbound-webhooks/deliver.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { webhookReceiver } from '#test/support/webhook-receiver.ts';

vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');

const BASE = '/api/webhook-subscriptions';
let owner: string;
let member: string;
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;

beforeAll(async () => {
  const tenantId = await newTenant();
  owner = await tokenFor({ tenantId });
  member = await tokenFor({ tenantId, role: 'TenantMember' });
  receiver = await webhookReceiver();
});
afterAll(() => receiver.close());

async function subscription() {
  const res = await invoke('POST', BASE, {
    token: owner,
    body: { url: receiver.url(`/attempts-${crypto.randomUUID()}`), eventTypes: ['message.created'] },
  });
  expect(res).toAnswer(201);
  return res.json.result.id as string;
}

interface Attempt {
  attempt: number;
  at: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

describe('a delivery lists its attempts', () => {
  it('a 500 then a 200: both attempts with their time, status, error and duration, in the list and the detail', async () => {
    const id = await subscription();
    receiver.answer(500);
    expect(await invoke('POST', `${BASE}/${id}/test`, { token: owner })).toAnswer(202);
    const list = await invoke('GET', `${BASE}/${id}/deliveries`, { token: member });
    expect(list).toAnswer(200);
    const [delivery] = list.json.result.items as { id: string; attempts: number; attemptLog: Attempt[] }[];
    expect(delivery!.attempts).toBe(2);
    expect(delivery!.attemptLog).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        statusCode: 500,
        error: 'The receiver answered 500',
        durationMs: expect.any(Number),
      },
      { attempt: 2, at: expect.any(String), statusCode: 200, error: null, durationMs: expect.any(Number) },
    ]);
    for (const a of delivery!.attemptLog) {
      expect(new Date(a.at).toISOString()).toBe(a.at);
      expect(a.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(Date.parse(delivery!.attemptLog[0]!.at)).toBeLessThanOrEqual(Date.parse(delivery!.attemptLog[1]!.at));

    const detail = await invoke('GET', `${BASE}/${id}/deliveries/${delivery!.id}`, { token: member });
    expect(detail).toAnswer(200);
    expect(detail.json.result).toEqual(delivery);
  });

  it('a receiver that keeps failing shows every attempt up to the retry limit, and no more', async () => {
    const id = await subscription();
    receiver.answer(...Array(MAX_ATTEMPTS).fill(503));
    expect(await invoke('POST', `${BASE}/${id}/test`, { token: owner })).toAnswer(202);
    const [delivery] = (await invoke('GET', `${BASE}/${id}/deliveries`, { token: member })).json.result.items;
    expect(delivery.status).toBe('failed');
    expect(delivery.attemptLog.map((a: Attempt) => [a.attempt, a.statusCode])).toEqual(
      Array.from({ length: MAX_ATTEMPTS }, (_, i) => [i + 1, 503]),
    );
  });

  it('the detail is 404 for a delivery of another subscription and 400 for an id that is not a UUID', async () => {
    const [a, b] = [await subscription(), await subscription()];
    expect(await invoke('POST', `${BASE}/${a}/test`, { token: owner })).toAnswer(202);
    const [delivery] = (await invoke('GET', `${BASE}/${a}/deliveries`, { token: owner })).json.result.items;
    expect(await invoke('GET', `${BASE}/${b}/deliveries/${delivery.id}`, { token: owner })).toAnswer(404, 'NOT_FOUND');
    expect(await invoke('GET', `${BASE}/${a}/deliveries/nope`, { token: owner })).toAnswer(400, 'VALIDATION_ERROR');
  });
});
