import { beforeAll, describe, expect, it } from 'vitest';
import { admit, finish } from '#areas/llm-gateway/admission.ts';
import { promptTokens } from '#areas/llm-gateway/prompt-tokens.ts';
import { recordCall } from '#areas/llm-gateway/usage.ts';
import { inOneRateWindow, newTenant } from '#test/support/fixtures.ts';
import { ip, newKey, requestsDuring, setAllowance, userSays, v1 } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { ddb } from '#shared/platform/aws.ts';

/**
 * Fewer round trips, same guarantees: a key's rpm and tpm share one counter item per minute, leased
 * to each instance in slices (rates.ts), and a burst still never passes either limit; the usage items are written
 * in the analytics record's transaction, so they count exactly when the record does.
 */
const SAY = userSays('please repeat this rather long sentence back to me');
const MAX = 3;
let worst: number;

beforeAll(async () => {
  worst = (await promptTokens([{ role: 'user', content: SAY[0]!.content }])) + MAX;
});

async function tenantWithKey(keyBody: Record<string, unknown>) {
  const tenant = await newTenant({ planType: 2 });
  await setAllowance(tenant, 10_000_000);
  const owner = await tokenFor({ tenantId: tenant });
  return { tenant, owner, key: await newKey(owner, keyBody) };
}

const call = (secret: string) =>
  v1('POST', '/chat/completions', secret, { body: { model: 'local-chat', messages: SAY, max_tokens: MAX } });

const usageOf = async (owner: string) =>
  (await invoke('GET', '/api/llm-gateway/usage', { token: owner, ip: ip() })).json.result;

describe('twenty parallel calls against a key', () => {
  it('with rpm 5 admit exactly five; the others are 429 rate_limit_exceeded with Retry-After', async () => {
    const { key } = await tenantWithKey({ rpmLimit: 5 });
    const answers = await inOneRateWindow(() => Promise.all(Array.from({ length: 20 }, () => call(key.key))));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
    const refused = answers.filter((r) => r.status === 429);
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      expect(r.json.error.code, r.text).toBe('rate_limit_exceeded');
      expect(r.json.error.message).toEqual(expect.stringMatching(/requests per minute/));
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });

  it('with a tpm that fits five worst cases admit exactly five, and refused calls give their tokens back', async () => {
    const { owner, key } = await tenantWithKey({ tpmLimit: 5 * worst + worst - 1 });
    await inOneRateWindow(async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, () => call(key.key)));
      expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
      const refused = answers.filter((r) => r.status === 429);
      expect(refused).toHaveLength(15);
      for (const r of refused) expect(r.json.error.message).toEqual(expect.stringMatching(/tokens per minute/));
      expect((await usageOf(owner)).tokensUsed).toBe(5 * worst);
      // Had a refused call kept its tokens, the window would be full long past these five.
      const last = await call(key.key);
      expect(last).toAnswer(429);
    });
  });

  it('when a call passes both limits, the refusal names requests per minute', async () => {
    const { key } = await tenantWithKey({ rpmLimit: 1, tpmLimit: worst });
    const second = await inOneRateWindow(async () => {
      expect(await call(key.key)).toAnswer(200);
      return call(key.key);
    });
    expect(second.json.error.message).toEqual(expect.stringMatching(/requests per minute/));
  });
});

describe('round trips around the model', () => {
  it('a warm call of a key with rpm, tpm and a budget makes one DynamoDB request before the model and one after', async () => {
    const { tenant, key } = await tenantWithKey({ rpmLimit: 100, tpmLimit: 1_000_000, maxBudgetUsd: 10 });
    const input = () => ({
      tenantId: tenant,
      caller: { kind: 'key' as const, keyId: key.id },
      requestId: crypto.randomUUID(),
      model: 'local-chat',
      kind: 'chat' as const,
      promptTokens: worst - MAX,
      maxOutput: MAX,
    });
    // The first call of an instance reads the standing before it leases; the next ones beside it.
    // Its rate slice and leases cover one call, the second's two: the third is admitted from them.
    const before: string[][] = [];
    const after: string[][] = [];
    for (let i = 0; i < 3; i++) {
      let warm: Awaited<ReturnType<typeof admit>> | undefined;
      before.push(
        await requestsDuring(async () => {
          warm = await admit(input());
        }),
      );
      after.push(
        await requestsDuring(() =>
          finish(warm!, { model: warm!.chain[0]!, promptTokens: worst - MAX, completionTokens: MAX }),
        ),
      );
    }
    // The second leases afresh on all three (rpm/tpm, budget, allowance), and settles the first's
    // two leases, retired, beside its record.
    expect(before[1]!.sort()).toEqual([
      'BatchGetItemCommand',
      'UpdateItemCommand',
      'UpdateItemCommand',
      'UpdateItemCommand',
    ]);
    expect(after[1]!.sort()).toEqual(['TransactWriteItemsCommand', 'UpdateItemCommand', 'UpdateItemCommand']);
    expect(before[2]).toEqual(['BatchGetItemCommand']);
    expect(after[2]).toEqual(['TransactWriteItemsCommand']);
  });
});

describe('recorded once', () => {
  it('a call recorded twice (a retried write) counts once in usage per model and per key', async () => {
    const { tenant, owner, key } = await tenantWithKey({});
    const record = {
      tenantId: tenant,
      caller: { kind: 'key' as const, keyId: key.id },
      requestId: crypto.randomUUID(),
      model: 'local-chat',
      promptTokens: 10,
      completionTokens: 3,
      costNano: 16_000,
      latencyMs: 5,
      isError: false,
      at: new Date().toISOString(),
    };
    await recordCall(record);
    await recordCall(record);
    const usage = await usageOf(owner);
    expect(usage.models).toEqual([expect.objectContaining({ model: 'local-chat', requests: 1, promptTokens: 10 })]);
    expect(usage.keys).toEqual([expect.objectContaining({ keyId: key.id, requests: 1, completionTokens: 3 })]);
  });
});

describe("a call's one read before the model", () => {
  it('is strongly consistent for every caller: a key, a user and an agent', async () => {
    // Prepare
    const { tenant, key } = await tenantWithKey({});
    const reads: { command: string; consistent: unknown }[] = [];
    const name = `consistency-${crypto.randomUUID()}`;
    ddb().middlewareStack.add(
      (next, context) => (args) => {
        const input = args.input as {
          ConsistentRead?: boolean;
          RequestItems?: Record<string, { ConsistentRead?: boolean }>;
        };
        const consistent = input.RequestItems
          ? Object.values(input.RequestItems)[0]?.ConsistentRead
          : input.ConsistentRead;
        if (/^(Get|BatchGet)/.test(String(context.commandName)))
          reads.push({ command: String(context.commandName), consistent });
        return next(args);
      },
      { step: 'initialize', name },
    );
    const callers = [
      { kind: 'key' as const, keyId: key.id },
      { kind: 'user' as const, userId: crypto.randomUUID() },
      { kind: 'agent' as const, agentId: crypto.randomUUID() },
    ];

    // Act
    try {
      for (const caller of callers) {
        const a = await admit({
          tenantId: tenant,
          caller,
          requestId: crypto.randomUUID(),
          model: 'local-chat',
          kind: 'chat',
          promptTokens: 10,
          maxOutput: MAX,
        });
        await finish(a, { model: a.chain[0]!, promptTokens: 10, completionTokens: MAX });
      }
    } finally {
      ddb().middlewareStack.remove(name);
    }

    // Assess
    expect(reads.length).toBeGreaterThanOrEqual(3);
    expect(reads.filter((r) => r.consistent !== true)).toEqual([]);
  });
});
