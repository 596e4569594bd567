import { describe, expect, it } from 'vitest';
import { rerank, rerankTokens } from '#areas/llm-gateway/rerank.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { ip, setAllowance } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * Rerank as a model kind of the gateway: the same admission, metering and refusals as a chat or an
 * embedding call, on the local stand-in reranker.
 */
const query = 'reset a forgotten password';
const documents = [
  'Our offices are closed on public holidays.',
  'To reset a forgotten password, open the sign-in page and choose Forgot password.',
  'A password must be at least twelve characters long.',
];

async function tenant(allowance = 1_000_000) {
  const t = await newTenant({ planType: 2 });
  await setAllowance(t, allowance);
  return { tenantId: t, owner: await tokenFor({ tenantId: t }) };
}

const call = (tenantId: string, more: Partial<Parameters<typeof rerank>[0]> = {}) =>
  rerank({
    tenantId,
    caller: { kind: 'user', userId: crypto.randomUUID() },
    requestId: crypto.randomUUID(),
    model: null,
    query,
    documents,
    topN: 2,
    ...more,
  });

describe('a rerank call', () => {
  it('answers the best topN by index, best first, and is metered once as input tokens', async () => {
    const { tenantId, owner } = await tenant();
    const out = await call(tenantId);
    expect(out.model).toBe('local-rerank');
    expect(out.ranked.map((r) => r.index)).toEqual([1, 2]);
    const read = await rerankTokens(query, documents);
    expect(out.usage).toEqual({ promptTokens: read, totalTokens: read });
    const usage = (await invoke('GET', '/api/llm-gateway/usage', { token: owner, ip: ip() })).json.result;
    expect(usage).toMatchObject({ tokensUsed: read, tokensReserved: 0 });
    expect(usage.models).toEqual([expect.objectContaining({ model: 'local-rerank', requests: 1, promptTokens: read })]);
    expect(usage.spendUsd).toBeCloseTo((read * 0.05) / 1_000_000, 12);
  });

  it('is refused by a month allowance it would pass, holding nothing', async () => {
    const { tenantId, owner } = await tenant((await rerankTokens(query, documents)) - 1);
    await expect(call(tenantId)).rejects.toMatchObject({ status: 429, code: 'TOKEN_LIMIT_REACHED' });
    const usage = (await invoke('GET', '/api/llm-gateway/usage', { token: owner, ip: ip() })).json.result;
    expect(usage).toMatchObject({ tokensUsed: 0, tokensReserved: 0 });
  });

  it('names a chat model asked to rerank as a chat model (404)', async () => {
    const { tenantId } = await tenant();
    await expect(call(tenantId, { model: 'local-chat' })).rejects.toMatchObject({
      status: 404,
      message: expect.stringMatching(/chat model/),
    });
  });

  it('refuses more documents than it reads, or a topN below 1, before any metering', async () => {
    const { tenantId } = await tenant();
    await expect(call(tenantId, { documents: Array(1001).fill('x') })).rejects.toMatchObject({ status: 400 });
    await expect(call(tenantId, { topN: 0 })).rejects.toMatchObject({ status: 400 });
  });
});
