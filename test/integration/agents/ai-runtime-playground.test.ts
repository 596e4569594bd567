import { beforeAll, describe, expect, it } from 'vitest';
import { agentKey } from '#areas/agents/snapshot.ts';
import { commitChange, updateItem } from '#shared/data/commit.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { activePrompt, agentItem } from '#test/support/agents-runtime.ts';
import { setAllowance } from '#test/support/gateway.ts';

let t: string;
let owner: string;
let member: string;
let ownerB: string;
let promptId: string;

beforeAll(async () => {
  t = await newTenant();
  owner = await tokenFor({ tenantId: t });
  member = await tokenFor({ tenantId: t, role: 'TenantMember' });
  ownerB = await tokenFor({ tenantId: await newTenant() });
  ({ promptId } = await activePrompt(t, 'You are {{agent_name}}.'));
});

const chatPath = (id: string) => `/api/ai/agents/${id}/chat`;
const hello = { messages: [{ role: 'user', content: 'hello there' }] };

describe('POST /api/ai/agents/{agentId}/chat (playground)', () => {
  it('answers one turn of the draft with usage; members and other tenants are refused', async () => {
    const agent = await agentItem(t, { promptId });
    const res = await invoke('POST', chatPath(agent.id), { token: owner, body: hello });
    expect(res).toAnswer(200);
    expect(res.json.result).toMatchObject({ message: 'You said: hello there', citations: [], toolCalls: [] });
    expect(res.json.result.usage.totalTokens).toBeGreaterThan(0);
    expect(await invoke('POST', chatPath(agent.id), { token: member, body: hello })).toAnswer(403);
    expect(await invoke('POST', chatPath(agent.id), { token: ownerB, body: hello })).toAnswer(404);
  });

  it('404 for an absent or deleted agent, 409 when the prompt has no Active version', async () => {
    expect(await invoke('POST', chatPath(crypto.randomUUID()), { token: owner, body: hello })).toAnswer(404);
    const deleted = await agentItem(t, { promptId, deletedAt: new Date().toISOString() } as never);
    expect(await invoke('POST', chatPath(deleted.id), { token: owner, body: hello })).toAnswer(404);
    const { promptId: other } = await activePrompt(t, 'x');
    const { prompts } = await import('#areas/prompts/records.ts');
    await commitChange([updateItem(prompts.key(t, other), { activeVersionId: null })], null);
    const noActive = await agentItem(t, { promptId: other });
    const res = await invoke('POST', chatPath(noActive.id), { token: owner, body: hello });
    expect(res).toAnswer(409, 'NO_ACTIVE_PROMPT_VERSION');
    expect(agentKey(t, noActive.id).pk.startsWith(t)).toBe(true);
  });

  it('a used-up token allowance is a 429 TOKEN_LIMIT_REACHED, not a 500', async () => {
    const t2 = await newTenant();
    const o2 = await tokenFor({ tenantId: t2 });
    const p = await activePrompt(t2, 'Hi');
    const agent = await agentItem(t2, { promptId: p.promptId });
    await setAllowance(t2, 1);
    const res = await invoke('POST', chatPath(agent.id), { token: o2, body: hello });
    expect(res).toAnswer(429, 'TOKEN_LIMIT_REACHED');
  });
});
