import { asFunction } from '#test/support/wiring.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { runTurn } from '#areas/agents/runtime.ts';
import { agentKey, agentVersionKey, type AgentSnapshot } from '#areas/agents/snapshot.ts';
import { purgeBase } from '#areas/knowledge/purge.ts';
import { commitChange, updateItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { AGENTS, newPrompt } from '#test/support/agents.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { caller, invoke } from '#test/support/invoke.ts';
import { addText, KB, newBase, settled, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { auditEntries } from '#test/support/audit.ts';

useKnowledgeStandIns();

let t: string;
let owner: string;
let agents: ReturnType<typeof caller>;
let promptId: string;

beforeAll(async () => {
  t = await newTenant({ planType: 2, maxAgents: 20, maxKnowledgeBases: 20 });
  owner = await tokenFor({ tenantId: t });
  agents = caller(AGENTS, owner);
  promptId = await newPrompt(owner);
});

async function baseWith(sentence: string) {
  const kb = await newBase(owner);
  const doc = await addText(owner, kb.id, 'Notes', sentence);
  expect(doc).toAnswer(202);
  expect((await settled(owner, kb.id, doc.json.result.id)).status).toBe('Indexed');
  return kb.id;
}
const deleteBase = async (kbId: string) =>
  expect(await invoke('DELETE', `${KB}/${kbId}`, { token: owner })).toAnswer(204);
async function newAgent(knowledgeBaseIds: string[]) {
  const res = await agents.post('', { name: `Agent ${crypto.randomUUID().slice(0, 6)}`, promptId, knowledgeBaseIds });
  expect(res).toAnswer(201);
  return res.json.result as { id: string; updatedAt: string; knowledgeBaseIds: string[] };
}
const agentOf = async (id: string) =>
  (await agents.get(`/${id}`)).json.result as { knowledgeBaseIds: string[]; updatedAt: string };
/** The published version's snapshot, as widgets and channels run it. */
const published = async (agentId: string, version: number) =>
  (await get<{ snapshot: AgentSnapshot }>(agentVersionKey(t, agentId, version)))!.snapshot;
const turnOf = (agent: AgentSnapshot, content: string) =>
  runTurn({
    tenantId: t,
    agent,
    messages: [{ role: 'user', content }],
    caller: { kind: 'agent', agentId: agent.agentId },
    requestId: crypto.randomUUID(),
  });

describe('deleting a knowledge base', () => {
  it('unbinds it from every agent draft that names it, with an audit entry; other drafts stay as they were', async () => {
    const gone = await baseWith('The orchard harvests quinces in late October.');
    const kept = await baseWith('The cellar keeps cider barrels at twelve degrees.');
    const both = await newAgent([gone, kept]);
    const only = await newAgent([gone]);
    const other = await newAgent([kept]);
    await deleteBase(gone);
    expect((await agentOf(both.id)).knowledgeBaseIds).toEqual([kept]);
    expect((await agentOf(only.id)).knowledgeBaseIds).toEqual([]);
    expect(await agentOf(other.id)).toMatchObject({ knowledgeBaseIds: [kept], updatedAt: other.updatedAt });
    const unbound = (await auditEntries(both.id)).find((a) => a.action === 'unbind-knowledge-base');
    expect(JSON.parse(unbound!.changes)).toMatchObject({ knowledgeBaseId: gone });
    expect((await auditEntries(other.id)).map((a) => a.action)).toEqual(['create']);
    // The draft is usable again at once: publishing re-checks its bases.
    const pub = await agents.post(`/${only.id}/publish`);
    expect(pub).toAnswer(200);
  });

  it('leaves published versions as they were: their turns skip the missing base and still answer', async () => {
    const gone = await baseWith('The orchard harvests quinces in late October.');
    const kept = await baseWith('The cellar keeps cider barrels at twelve degrees.');
    const agent = await newAgent([gone, kept]);
    expect(await agents.post(`/${agent.id}/publish`)).toAnswer(200);
    await deleteBase(gone);

    const versions = (await agents.get(`/${agent.id}/versions`)).json.result.items;
    expect(versions[0].knowledgeBaseIds).toEqual([gone, kept]);
    const v1 = await published(agent.id, 1);
    expect(v1.knowledgeBaseIds).toEqual([gone, kept]);
    const r = await turnOf(v1, 'when are quinces harvested and how cold is the cider cellar?');
    expect(r.message).toMatch(/^You said: /);
    expect(r.citations.length).toBeGreaterThan(0);

    // Every pinned base gone: no sources, and the turn still answers (no 404, no 500).
    await deleteBase(kept);
    const bare = await turnOf(v1, 'how cold is the cider cellar?');
    expect(bare).toMatchObject({ message: 'You said: how cold is the cider cellar?', citations: [] });

    // Restoring the version gives the draft only the bases that still exist.
    const restored = await agents.post(`/${agent.id}/versions/${versions[0].id}/restore`);
    expect(restored).toAnswer(200);
    expect(restored.json.result.knowledgeBaseIds).toEqual([]);
  });

  it('the purge worker unbinds a draft that named the base in a race with its deletion', async () => {
    const gone = await baseWith('The orchard harvests quinces in late October.');
    const agent = await newAgent([]);
    await deleteBase(gone);
    // As if an edit had read the base just before the delete and written just after it.
    await commitChange(
      [updateItem(agentKey(t, agent.id), { knowledgeBaseIds: [gone], updatedAt: new Date().toISOString() })],
      null,
    );
    await asFunction('knowledge-worker', () => purgeBase({ tenantId: t, kbId: gone }));
    expect((await agentOf(agent.id)).knowledgeBaseIds).toEqual([]);
  });

  it('the retrieve route still answers 404 for a deleted base', async () => {
    const gone = await baseWith('The orchard harvests quinces in late October.');
    await deleteBase(gone);
    const res = await invoke('POST', `${KB}/${gone}/retrieve`, { token: owner, body: { query: 'quinces' } });
    expect(res).toAnswer(404);
  });
});
