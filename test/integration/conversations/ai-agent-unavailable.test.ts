import { beforeAll, describe, expect, it } from 'vitest';
import { publishedWidget, session } from '#test/support/conversations.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { ip } from '#test/support/gateway.ts';
import { invoke, type InvokeResult } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

// A model whose provider always fails and that has no fallback: the real gateway answers UPSTREAM_ERROR.
let owner: string;
let agentId: string;
let widgetKey: string;

beforeAll(async () => {
  const admin = await tokenFor({ role: 'SystemAdmin' });
  const modelId = crypto.randomUUID();
  const put = await invoke('PUT', `/api/llm-gateway/models/${modelId}`, {
    token: admin,
    ip: ip(),
    body: {
      name: `down-${modelId.slice(0, 8)}`,
      provider: 'local',
      providerModel: 'flaky',
      kind: 'chat',
      inputPricePerMillion: 1,
      outputPricePerMillion: 1,
      contextWindow: 10_000,
    },
  });
  expect(put).toAnswer(201);
  owner = await tokenFor({ tenantId: await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 }) });
  ({ agentId, widgetKey } = await publishedWidget(owner, { modelId }));
});

const unavailable = (res: InvokeResult) => {
  expect([res.status, res.json?.error?.code], res.text).toEqual([503, 'AGENT_UNAVAILABLE']);
  expect(res.headers['retry-after']).toEqual(expect.stringMatching(/^\d+$/));
  expect(res.text).not.toMatch(/UPSTREAM|provider/i);
};

describe('a model provider that fails: the visitor and the playground hear AGENT_UNAVAILABLE, not the gateway', () => {
  it('widget send, plain and streamed', async () => {
    const s = await session(widgetKey);
    unavailable(await s.send('hello'));
    unavailable(await s.send('hello again', { accept: 'text/event-stream' }));
  });

  it('the playground', async () => {
    const res = await invoke('POST', `/api/ai/agents/${agentId}/chat`, {
      token: owner,
      body: { messages: [{ role: 'user', content: 'hello' }] },
    });
    unavailable(res);
  });
});
