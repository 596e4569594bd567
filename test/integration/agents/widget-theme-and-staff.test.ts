import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { widgetKeyLookup } from '#areas/agents/widget-records.ts';
import { createUser } from '#areas/identity/user-accounts.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { publishedWidget, session, startSession } from '#test/support/conversations.ts';
import { newTenant, userRecord } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * What the widget needs from the server: the widget's theme in the session answer (and in the embed,
 * for the bubble drawn before any request), and the name of the person who replied.
 */
let tenantId: string;
let owner: string;

beforeAll(async () => {
  tenantId = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
  owner = await tokenFor({ tenantId });
});

const THEME = { primaryColor: '#0f766e', position: 'left', title: 'Shop support' };

describe('the widget theme', () => {
  it('rides in the session answer and follows a change of the widget', async () => {
    const w = await publishedWidget(owner);
    const first = await startSession(w.widgetKey);
    expect(first).toAnswer(201);
    expect(first.json.result.theme).toEqual({ primaryColor: '#2563eb', position: 'right', title: 'Chat with us' });
    const put = await invoke('PUT', `/api/ai/widgets/${w.widgetId}`, { token: owner, body: { theme: THEME } });
    expect(put).toAnswer(200);
    expect((await startSession(w.widgetKey)).json.result.theme).toEqual(THEME);
  });

  it("is read from the widget itself when the key's lookup predates it", async () => {
    const w = await publishedWidget(owner);
    await invoke('PUT', `/api/ai/widgets/${w.widgetId}`, { token: owner, body: { theme: THEME } });
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: widgetKeyLookup(w.widgetKey),
        UpdateExpression: 'REMOVE theme',
      }),
    );
    expect((await startSession(w.widgetKey)).json.result.theme).toEqual(THEME);
  });

  it('rides in the embed, escaped as an HTML attribute', async () => {
    const w = await publishedWidget(owner);
    const title = 'Q&A "help" <desk>';
    await invoke('PUT', `/api/ai/widgets/${w.widgetId}`, { token: owner, body: { theme: { ...THEME, title } } });
    const embed = await invoke('GET', `/api/ai/widgets/${w.widgetId}/embed`, { token: owner });
    expect(embed).toAnswer(200);
    expect(embed.json.result.snippet).toEqual(
      expect.stringMatching(
        /^<script src="[^"]+\/api\/ai\/widget\.js" data-widget-key="wk_[^"]+" data-primary-color="#0f766e" data-position="left" data-title="Q&amp;A &quot;help&quot; &lt;desk&gt;" async><\/script>$/,
      ),
    );
  });
});

describe("a person's reply as the visitor sees it", () => {
  it("carries the staff member's first name; the agent's answers carry none", async () => {
    const w = await publishedWidget(owner);
    const s = await session(w.widgetKey);
    expect(await s.send('hello')).toAnswer(200);
    const sam = userRecord({ email: `sam-${crypto.randomUUID()}@shop.example.com`, firstName: 'Sam', tenantId });
    await createUser(sam, null);
    const samToken = await tokenFor({ tenantId, userId: sam.id });
    const reply = await invoke('POST', `/api/conversations/${s.conversationId}/messages`, {
      token: samToken,
      body: { text: 'Sam here' },
    });
    expect(reply).toAnswer(201);
    // A token whose user no longer exists still replies; the widget then says "Support team".
    const ghost = await invoke('POST', `/api/conversations/${s.conversationId}/messages`, {
      token: owner,
      body: { text: 'Someone here' },
    });
    expect(ghost).toAnswer(201);
    const list = (await s.messages()).json.result as { role: string; text: string; authorName: string | null }[];
    expect(list.map((m) => [m.role, m.authorName])).toEqual([
      ['visitor', null],
      ['agent', null],
      ['human', 'Sam'],
      ['human', null],
    ]);
  });
});
