import { beforeAll, expect, it, vi } from 'vitest';
import { ApiError } from '#shared/http/errors.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { testVectors } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { addText, KB, newBase, settled, useKnowledgeStandIns } from '#test/support/knowledge.ts';

/** What the gateway's refusals mean for knowledge: embed() is the gateway's, refusing as it will. */
const refusal = vi.hoisted(() => ({ on: false }));
vi.mock('#areas/llm-gateway/embed.ts', async (original) => {
  const real = await original<typeof import('#areas/llm-gateway/embed.ts')>();
  return {
    ...real,
    embed: async (call: Parameters<typeof real.embed>[0]) => {
      if (refusal.on) throw new ApiError(429, 'TOKEN_LIMIT_REACHED', "The tenant's monthly token allowance is used up");
      return real.embed(call);
    },
  };
});

useKnowledgeStandIns();

let owner: string;
let kbId: string;
beforeAll(async () => {
  owner = await tokenFor({ tenantId: await newTenant({ maxKnowledgeBases: 1 }) });
  kbId = (await newBase(owner)).id;
});

it('a document whose embeddings the gateway refuses ends Failed with the reason, nothing of it kept', async () => {
  refusal.on = true;
  try {
    const res = await addText(owner, kbId, 'refused', 'Otters hold hands while they sleep on the water.');
    expect(res).toAnswer(202);
    const doc = await settled(owner, kbId, res.json.result.id);
    expect(doc).toMatchObject({ status: 'Failed', chunkCount: 0 });
    expect(doc.error).toMatch(/Embedding was refused: .*token allowance/);
    const chunks = await invoke('GET', `${KB}/${kbId}/documents/${doc.id}/chunks`, { token: owner });
    expect(chunks.json.result.totalCount).toBe(0);
    expect(testVectors.size(kbId)).toBe(0);
    // A retrieve is refused the same way the gateway refuses it (the caller sees the gateway's code).
    const asked = await invoke('POST', `${KB}/${kbId}/retrieve`, { token: owner, body: { query: 'otters' } });
    expect(asked).toAnswer(429, 'TOKEN_LIMIT_REACHED');
    // Keyword mode needs no embedding.
    expect(
      await invoke('POST', `${KB}/${kbId}/retrieve`, { token: owner, body: { query: 'otters', mode: 'keyword' } }),
    ).toAnswer(200);
  } finally {
    refusal.on = false;
  }
});
