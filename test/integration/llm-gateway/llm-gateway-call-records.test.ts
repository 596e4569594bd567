import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { handler } from '#functions/usage-worker/index.ts';
import { queueSender, type QueueMessage } from '#shared/platform/ports.ts';
import type { QueueName } from '#shared/routes/groups.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { ip, newKey, requestsDuring, setAllowance, userSays, v1 } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { testQueue } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * A model call's record goes to the usage queue after the answer; the usage worker ingests a
 * delivery's records in one transaction, each counted once by its request id, and claims no message.
 */
const call = (secret: string) =>
  v1('POST', '/chat/completions', secret, {
    body: { model: 'local-chat', messages: userSays('count this call once'), max_tokens: 3 },
  });

async function tenantWithKey() {
  const tenant = await newTenant({ planType: 2 });
  await setAllowance(tenant, 10_000_000);
  const owner = await tokenFor({ tenantId: tenant });
  return { owner, key: await newKey(owner) };
}

const usageOf = async (owner: string) =>
  (await invoke('GET', '/api/llm-gateway/usage', { token: owner, ip: ip() })).json.result;

/** An SQS delivery of these messages, as the event source hands it to the worker. */
const delivery = (messages: QueueMessage[]): SQSEvent => ({
  Records: messages.map(
    (m) => ({ messageId: crypto.randomUUID(), body: JSON.stringify(m) }) as SQSEvent['Records'][number],
  ),
});

/** Keeps what goes to the usage queue instead of delivering it; every other queue delivers as in the tests. */
function holdRecords() {
  const held: QueueMessage[] = [];
  queueSender.install({
    send: async (queue: QueueName, message: QueueMessage) => {
      if (queue === 'usage') held.push(message);
      else await testQueue.send(queue, message);
    },
  });
  return held;
}

afterEach(() => queueSender.install(testQueue));

describe('the records of model calls', () => {
  it('are queued after the answer; a delivery of them is one write, each counted once however often delivered', async () => {
    // Prepare
    const { owner, key } = await tenantWithKey();
    const held = holdRecords();
    for (let i = 0; i < 3; i++) {
      const r = await call(key.key);
      expect(r.status, r.text).toBe(200);
    }
    const before = await usageOf(owner);

    // Act: the three, one of them twice, in one delivery; then the same delivery again.
    expect(held.map((m) => m.type)).toEqual(['llm.call-recorded', 'llm.call-recorded', 'llm.call-recorded']);
    const first = delivery([...held, held[0]!]);
    let answer: Awaited<ReturnType<typeof handler>> | undefined;
    const requests = await requestsDuring(async () => {
      answer = await handler(first);
    });
    const again = await handler(delivery(held));

    // Assess
    expect(before.keys).toEqual([]);
    expect(answer?.batchItemFailures).toEqual([]);
    expect(again.batchItemFailures).toEqual([]);
    expect(requests).toEqual(['TransactWriteItemsCommand']);
    const after = await usageOf(owner);
    expect(after.keys).toEqual([expect.objectContaining({ keyId: key.id, requests: 3 })]);
    expect(after.models).toEqual([expect.objectContaining({ model: 'local-chat', requests: 3 })]);
  });

  it('that cannot be written fail alone: the rest of their delivery is counted, only they are retried', async () => {
    // Prepare
    const { owner, key } = await tenantWithKey();
    const held = holdRecords();
    for (let i = 0; i < 2; i++) expect(await call(key.key)).toAnswer(200);
    const sound = held.map((m) => ({ ...m }));
    // A tenant id past DynamoDB's 2 KB key: its items cannot be written, so neither can a transaction holding them.
    const unwritable = {
      ...sound[0]!,
      id: crypto.randomUUID(),
      payload: { ...sound[0]!.payload, tenantId: 't'.repeat(3000), requestId: crypto.randomUUID() },
    };
    const event = delivery([sound[0]!, unwritable, sound[1]!]);

    // Act
    const answer = await handler(event);

    // Assess
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: event.Records[1]!.messageId }]);
    expect((await usageOf(owner)).keys).toEqual([expect.objectContaining({ keyId: key.id, requests: 2 })]);
  });

  it('are written in-process when the queue cannot take them', async () => {
    // Prepare
    const { owner, key } = await tenantWithKey();
    queueSender.install({
      send: async (queue: QueueName, message: QueueMessage) => {
        if (queue === 'usage') throw new Error('SQS is unavailable');
        await testQueue.send(queue, message);
      },
    });

    // Act
    const r = await call(key.key);

    // Assess
    expect(r.status, r.text).toBe(200);
    expect((await usageOf(owner)).keys).toEqual([expect.objectContaining({ keyId: key.id, requests: 1 })]);
  });
});
