import { beforeAll, describe, expect, it } from 'vitest';
import { agentKey } from '#areas/agents/snapshot.ts';
import { updateItem } from '#shared/data/commit.ts';
import { writeItem } from '#shared/data/write-one.ts';
import { activeToolVia, AGENTS } from '#test/support/agents.ts';
import { publishedWidget, session } from '#test/support/conversations.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { testMailer } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * A held call whose tool left the agent never runs: approving it answers 409 TOOL_NO_LONGER_ON_AGENT
 * and ends it with a note, and the agent change that removed the tool ends its pending calls at once.
 */
let t: string;
let owner: string;

beforeAll(async () => {
  t = await newTenant({ planType: 2, maxAgents: 20, maxWidgetIntegrations: 40 });
  owner = await tokenFor({ tenantId: t });
});

const sentTo = (marker: string) => testMailer.outbox.filter((m) => m.text === marker);
const actionsOf = (conversationId: string) =>
  invoke('GET', `/api/conversations/${conversationId}/actions`, { token: owner });
const approve = (conversationId: string, actionId: string) =>
  invoke('POST', `/api/conversations/${conversationId}/actions/${actionId}/approve`, { token: owner, body: {} });

async function heldOnWidget() {
  const toolId = await activeToolVia(owner, 'send_email', 'Mail Desk', { allowedRecipients: ['acme.example'] });
  const w = await publishedWidget(owner, { toolIds: [toolId] });
  const s = await session(w.widgetKey);
  const marker = crypto.randomUUID();
  const sent = await s.send(`mail_desk {"to":"ann@acme.example","subject":"Lead","text":"${marker}"}`);
  expect(sent).toAnswer(200);
  expect(sent.json.result.awaitingApproval).toBe(true);
  const { id } = (await actionsOf(s.conversationId)).json.result[0] as { id: string };
  return { ...w, s, marker, actionId: id };
}

describe('a held call whose tool left the agent', () => {
  it('approved after the tool left the published agent (no change pass ran): 409, a note, nothing runs', async () => {
    const h = await heldOnWidget();
    // The binding gone from the agent as a direct write would leave it, without the agent change's pass.
    await writeItem(updateItem(agentKey(t, h.agentId), { publishedVersion: 999 }));
    const res = await approve(h.s.conversationId, h.actionId);
    expect(res).toAnswer(409, 'TOOL_NO_LONGER_ON_AGENT');
    const [a] = (await actionsOf(h.s.conversationId)).json.result;
    expect(a).toMatchObject({
      id: h.actionId,
      status: 'Expired',
      note: expect.stringMatching(/removed from the agent/),
    });
    expect(sentTo(h.marker)).toEqual([]);
    const last = (await h.s.messages()).json.result.at(-1);
    expect(last.role).toBe('agent');
    expect(last.text).toEqual(expect.stringMatching(/did not run/));
  });

  it('removing the tool and publishing ends its pending calls with a note; approving then is 409', async () => {
    const h = await heldOnWidget();
    expect(await invoke('PUT', `${AGENTS}/${h.agentId}/tools`, { token: owner, body: { toolIds: [] } })).toAnswer(200);
    // The draft lost it, the published version still has it: the visitor's call still waits.
    expect((await actionsOf(h.s.conversationId)).json.result[0]).toMatchObject({ status: 'Pending', note: null });
    expect(await invoke('POST', `${AGENTS}/${h.agentId}/publish`, { token: owner })).toAnswer(200);
    const [a] = (await actionsOf(h.s.conversationId)).json.result;
    expect(a).toMatchObject({ status: 'Expired', note: expect.stringMatching(/removed from the agent/) });
    expect(await approve(h.s.conversationId, h.actionId)).toAnswer(409, 'TOOL_NO_LONGER_ON_AGENT');
    expect(sentTo(h.marker)).toEqual([]);
    const last = (await h.s.messages()).json.result.at(-1);
    expect(last.text).toEqual(expect.stringMatching(/did not run/));
  });

  it('the playground: the draft losing the tool makes the inline approval 409, and nothing runs', async () => {
    const toolId = await activeToolVia(owner, 'send_email', 'Mail Desk', { allowedRecipients: ['acme.example'] });
    const { agentId } = await publishedWidget(owner, { toolIds: [toolId] });
    const marker = crypto.randomUUID();
    const chat = (body: Record<string, unknown>) => invoke('POST', `${AGENTS}/${agentId}/chat`, { token: owner, body });
    const first = await chat({
      messages: [{ role: 'user', content: `mail_desk {"to":"ann@acme.example","text":"${marker}"}` }],
    });
    expect(first).toAnswer(200);
    const actionId = first.json.result.pendingActions[0].id as string;
    expect(await invoke('PUT', `${AGENTS}/${agentId}/tools`, { token: owner, body: { toolIds: [] } })).toAnswer(200);
    expect(await chat({ approveActionIds: [actionId] })).toAnswer(409, 'TOOL_NO_LONGER_ON_AGENT');
    expect(sentTo(marker)).toEqual([]);
  });
});
