import { asFunction } from '#test/support/wiring.ts';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentKey } from '#areas/agents/snapshot.ts';
import { refreshToolsKbStatus } from '#areas/tools/kb-status.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import { AGENTS, newPrompt } from '#test/support/agents.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { caller, invoke } from '#test/support/invoke.ts';
import { addText, KB, newBase, settled, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * Tools' kbStatus follows the knowledge bases bound to the tool's agents: indexing, deleting a
 * document or a base, changing an agent's bases, deleting an agent and relinking the tool all move
 * it, and only the tool's own tenant's bases count.
 */
useKnowledgeStandIns();

type Tenant = { t: string; owner: string; tools: ReturnType<typeof caller>; agents: ReturnType<typeof caller> };
let a: Tenant;
let b: Tenant;
let promptA: string;

async function tenant(): Promise<Tenant> {
  const t = await newTenant({ planType: 2, maxAgents: 20, maxKnowledgeBases: 20 });
  const owner = await tokenFor({ tenantId: t });
  return { t, owner, tools: caller('/api/tools', owner), agents: caller(AGENTS, owner) };
}

beforeAll(async () => {
  a = await tenant();
  b = await tenant();
  promptA = await newPrompt(a.owner);
});

const SENTENCES = Array.from(
  { length: 30 },
  (_, i) => `Sentence ${i} says the warehouse ships parcel ${i} on weekday ${i % 7} with care.`,
).join(' ');

async function newAgent(knowledgeBaseIds: string[]) {
  const res = await a.agents.post('', {
    name: `Agent ${crypto.randomUUID().slice(0, 6)}`,
    promptId: promptA,
    knowledgeBaseIds,
  });
  expect(res).toAnswer(201);
  return res.json.result.id as string;
}
async function newTool(who: Tenant, agentIds: string[]) {
  const baseToolId = BUILT_IN_TOOLS.find((x) => x.code === 'http_request')!.id;
  const res = await who.tools.post('', { displayName: `Tool ${crypto.randomUUID().slice(0, 6)}`, baseToolId });
  expect(res).toAnswer(201);
  const id = res.json.result.id as string;
  if (agentIds.length) expect((await who.tools.put(`/${id}`, { agentIds })).status).toBe(200);
  return id;
}
async function indexed(kbId: string, text = SENTENCES) {
  const res = await addText(a.owner, kbId, `Doc ${crypto.randomUUID().slice(0, 6)}`, text);
  expect(res).toAnswer(202);
  const doc = await settled(a.owner, kbId, res.json.result.id);
  expect(doc.status).toBe('Indexed');
  expect(doc.chunkCount).toBeGreaterThan(0);
  return { id: doc.id, chunks: doc.chunkCount };
}
const kbStatus = async (who: Tenant, toolId: string) => {
  const res = await who.tools.get(`/${toolId}/config`);
  expect(res).toAnswer(200);
  return res.json.result.kbStatus as { hasChunks: boolean; chunkCount: number };
};
const listed = async (who: Tenant, q: string) =>
  ((await who.tools.get(`?pageSize=100${q}`)).json.result.items as { id: string; kbStatus: unknown }[]).map(
    (i) => i.id,
  );
const baseChunks = async (kbId: string) =>
  (await invoke('GET', `${KB}/${kbId}`, { token: a.owner })).json.result.chunkCount as number;

describe("tools' kbStatus", () => {
  it('follows indexing, document delete and unbinding; the kbStatus filter finds the tool only with chunks', async () => {
    const kb = await newBase(a.owner, { chunkSize: 100, chunkOverlap: 0 });
    const agent = await newAgent([kb.id]);
    const tool = await newTool(a, [agent]);
    expect(await kbStatus(a, tool)).toEqual({ hasChunks: false, chunkCount: 0 });
    expect(await listed(a, '&kbStatus=0')).toContain(tool);

    const doc = await indexed(kb.id);
    expect(await baseChunks(kb.id)).toBe(doc.chunks);
    expect(await kbStatus(a, tool)).toEqual({ hasChunks: true, chunkCount: doc.chunks });
    expect(await listed(a, '&kbStatus=1')).toContain(tool);
    expect(await listed(a, '&kbStatus=0')).not.toContain(tool);
    const item = (await a.tools.get('?pageSize=100')).json.result.items.find((i: { id: string }) => i.id === tool);
    expect(item.kbStatus).toEqual({ hasChunks: true, chunkCount: doc.chunks });

    // A second document adds its chunks; deleting the first takes them back.
    const more = await indexed(kb.id, 'The second document is about returns. Returns take five days.');
    expect((await kbStatus(a, tool)).chunkCount).toBe(doc.chunks + more.chunks);
    expect(await invoke('DELETE', `${KB}/${kb.id}/documents/${doc.id}`, { token: a.owner })).toAnswer(204);
    expect(await kbStatus(a, tool)).toEqual({ hasChunks: true, chunkCount: more.chunks });

    // Unbinding the base from the agent leaves the tool without chunks.
    expect(await a.agents.put(`/${agent}/knowledge-bases`, { knowledgeBaseIds: [] })).toAnswer(200);
    expect(await kbStatus(a, tool)).toEqual({ hasChunks: false, chunkCount: 0 });
    expect(await listed(a, '&kbStatus=1')).not.toContain(tool);
    expect(await listed(a, '&kbStatus=0')).toContain(tool);

    // Binding it again brings them back.
    expect(await a.agents.put(`/${agent}/knowledge-bases`, { knowledgeBaseIds: [kb.id] })).toAnswer(200);
    expect((await kbStatus(a, tool)).chunkCount).toBe(more.chunks);
  });

  it('counts a base bound to two of its agents once, and follows agent delete, base delete and relinking', async () => {
    const kb1 = await newBase(a.owner, { chunkSize: 100, chunkOverlap: 0 });
    const kb2 = await newBase(a.owner, { chunkSize: 100, chunkOverlap: 0 });
    const d1 = await indexed(kb1.id);
    const d2 = await indexed(kb2.id, 'Opening hours are nine to five. The shop is closed on Sundays.');
    const agent1 = await newAgent([kb1.id]);
    const agent2 = await newAgent([kb1.id, kb2.id]);
    const tool = await newTool(a, [agent1]);
    expect((await kbStatus(a, tool)).chunkCount).toBe(d1.chunks);

    // Relinking answers the new count at once and stores it.
    const res = await a.tools.put(`/${tool}`, { agentIds: [agent1, agent2] });
    expect(res.json.result.kbStatus).toEqual({ hasChunks: true, chunkCount: d1.chunks + d2.chunks });
    expect((await kbStatus(a, tool)).chunkCount).toBe(d1.chunks + d2.chunks);

    expect(await a.agents.del(`/${agent2}`)).toAnswer(204);
    expect((await kbStatus(a, tool)).chunkCount).toBe(d1.chunks);

    expect(await invoke('DELETE', `${KB}/${kb1.id}`, { token: a.owner })).toAnswer(204);
    expect(await kbStatus(a, tool)).toEqual({ hasChunks: false, chunkCount: 0 });

    // A tool linked to no agent shows none.
    const other = await newTool(a, []);
    expect(await kbStatus(a, other)).toEqual({ hasChunks: false, chunkCount: 0 });
  });

  it("never counts another tenant's base, even when an agent item names it", async () => {
    const kb = await newBase(a.owner, { chunkSize: 100, chunkOverlap: 0 });
    const doc = await indexed(kb.id);
    const agentA = await newAgent([kb.id]);
    const toolA = await newTool(a, [agentA]);
    expect((await kbStatus(a, toolA)).chunkCount).toBe(doc.chunks);

    // Tenant B's routes refuse A's base (400), so B's agent names it only by a forged item.
    const forged = crypto.randomUUID();
    await ddb().send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...agentKey(b.t, forged), id: forged, tenantId: b.t, name: 'Forged', knowledgeBaseIds: [kb.id] },
      }),
    );
    const toolB = await newTool(b, [forged]);
    await asFunction('tools', () => refreshToolsKbStatus(b.t));
    expect(await kbStatus(b, toolB)).toEqual({ hasChunks: false, chunkCount: 0 });
    expect(await listed(b, '&kbStatus=1')).toEqual([]);
    // Tenant A's changes leave B's tools alone, and B cannot read A's tool.
    await indexed(kb.id, 'A later note about invoices. Invoices are sent monthly.');
    expect((await kbStatus(b, toolB)).chunkCount).toBe(0);
    expect(await b.tools.get(`/${toolA}/config`)).toAnswer(404);
  });
});
