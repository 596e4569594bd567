import { beforeAll, describe, expect, it } from 'vitest';
import { publishedWidget, session } from '#test/support/conversations.ts';
import { checkAnswersAgainstDocument } from '#test/support/document-check.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { newKey, userSays, v1 } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * The answers the hardening suites do not reach: streamed ones (server-sent events), an upsert's
 * 201, a retried widget send with its Idempotency-Key. Each is checked against the API document.
 */
const documentCheck = checkAnswersAgainstDocument();

let owner: string;
let gatewayKey: string;
let widgetKey: string;
beforeAll(async () => {
  const tenant = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
  owner = await tokenFor({ tenantId: tenant });
  gatewayKey = (await newKey(owner)).key;
  widgetKey = (await publishedWidget(owner)).widgetKey;
});

describe('answers beyond the hardening suites', () => {
  it('a chat completion, plain and streamed', async () => {
    const body = { model: 'local-chat', messages: userSays('hello') };
    expect(await v1('POST', '/chat/completions', gatewayKey, { body })).toAnswer(200);
    const streamed = await v1('POST', '/chat/completions', gatewayKey, { body: { ...body, stream: true } });
    expect(streamed).toAnswer(200);
    expect(streamed.headers['content-type']).toEqual(expect.stringMatching(/^text\/event-stream/));
  });

  it('a widget message, plain, streamed and retried with its Idempotency-Key', async () => {
    const visitor = await session(widgetKey);
    expect(await visitor.send('hello')).toAnswer(200);
    const streamed = await visitor.send('and again', { accept: 'text/event-stream' });
    expect(streamed).toAnswer(200);
    expect(streamed.headers['content-type']).toEqual(expect.stringMatching(/^text\/event-stream/));
    const once = { 'idempotency-key': 'msg-1' };
    const first = await visitor.send('only once', once);
    const retried = await visitor.send('only once', once);
    expect([first.status, retried.status]).toEqual([200, 200]);
  });

  it('a model catalog entry created (201) and replaced (200) by the same PUT', async () => {
    const admin = await tokenFor({ role: 'SystemAdmin' });
    const id = crypto.randomUUID();
    const body = {
      name: `doc-${id.slice(0, 8)}`,
      provider: 'local',
      providerModel: 'echo',
      kind: 'chat',
      inputPricePerMillion: 1,
      outputPricePerMillion: 1,
      contextWindow: 1000,
    };
    const created = await invoke('PUT', `/api/llm-gateway/models/${id}`, { token: admin, body });
    const replaced = await invoke('PUT', `/api/llm-gateway/models/${id}`, { token: admin, body });
    expect([created.status, replaced.status], created.text).toEqual([201, 200]);
  });
});

describe('the API document', () => {
  it('describes every answer this file received (status, content type, body)', () => {
    documentCheck.stop();
    expect(documentCheck.answers()).toBeGreaterThan(0);
    expect(documentCheck.departures()).toEqual([]);
  });
});
