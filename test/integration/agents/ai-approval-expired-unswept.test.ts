import { beforeAll, describe, expect, it } from 'vitest';
import { actionKey } from '#areas/agents/records.ts';
import { writeItem } from '#shared/data/write-one.ts';
import { updateItem } from '#shared/data/commit.ts';
import { activeToolVia } from '#test/support/agents.ts';
import { publishedWidget, session } from '#test/support/conversations.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { testMailer } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * A held call whose time ran out before the scheduler's sweep came by: the approval is refused as
 * expired, the action lists as Expired, and the tool never runs (the sweep is not needed for that).
 */
let t: string;
let owner: string;

beforeAll(async () => {
  t = await newTenant({ planType: 2, maxAgents: 20, maxWidgetIntegrations: 40 });
  owner = await tokenFor({ tenantId: t });
});

describe('approving a call past its expiry, before the sweep ran', () => {
  it('answers 409 ACTION_EXPIRED, lists it Expired, and the tool never runs', async () => {
    const toolId = await activeToolVia(owner, 'send_email', 'Mail Desk', {
      allowedRecipients: ['acme.example'],
      approvalTimeoutMinutes: 1,
    });
    const w = await publishedWidget(owner, { toolIds: [toolId] });
    const s = await session(w.widgetKey);
    const marker = crypto.randomUUID();
    const sent = await s.send(`mail_desk {"to":"ann@acme.example","subject":"Lead","text":"${marker}"}`);
    expect(sent).toAnswer(200);
    expect(sent.json.result.awaitingApproval).toBe(true);
    const list = await invoke('GET', `/api/conversations/${s.conversationId}/actions`, { token: owner });
    const { id } = list.json.result[0] as { id: string };

    // Its time ran out a second ago; no sweep has written it Expired.
    const past = new Date(Date.now() - 1_000).toISOString();
    await writeItem(updateItem(actionKey(t, { kind: 'conversation', id: s.conversationId }, id), { expiresAt: past }));

    const late = await invoke('POST', `/api/conversations/${s.conversationId}/actions/${id}/approve`, {
      token: owner,
      body: {},
    });
    expect(late).toAnswer(409, 'ACTION_EXPIRED');
    const after = await invoke('GET', `/api/conversations/${s.conversationId}/actions`, { token: owner });
    expect(after.json.result[0]).toMatchObject({ id, status: 'Expired', decidedBy: null, result: null });
    expect(testMailer.outbox.filter((m) => m.text === marker)).toEqual([]);
    const last = (await s.messages()).json.result.at(-1);
    expect(last.text).toEqual(expect.stringMatching(/expired and did not run/));
  });
});
