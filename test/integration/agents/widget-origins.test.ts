import { beforeAll, describe, expect, it } from 'vitest';
import { AGENTS } from '#test/support/agents.ts';
import { publishedWidget, startSession } from '#test/support/conversations.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

let owner: string;
let agentId: string;

beforeAll(async () => {
  owner = await tokenFor({ tenantId: await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 }) });
  agentId = (await publishedWidget(owner)).agentId;
});

const widgetWith = (allowedOrigins: string[]) =>
  invoke('POST', `${AGENTS}/${agentId}/widgets`, { token: owner, body: { name: 'Shop', allowedOrigins } });

describe('widget allowedOrigins are kept as browsers send an Origin', () => {
  it('a default port and an upper-case scheme or host are taken and stored normalised, repeats dropped', async () => {
    const res = await widgetWith([
      'https://Shop.Example.COM:443',
      'HTTPS://shop.example.com/',
      'https://app.example.com:8443',
      'http://localhost:80',
    ]);
    expect(res).toAnswer(201);
    expect(res.json.result.allowedOrigins).toEqual([
      'https://shop.example.com',
      'https://app.example.com:8443',
      'http://localhost',
    ]);
    const put = await invoke('PUT', `/api/ai/widgets/${res.json.result.id}`, {
      token: owner,
      body: { allowedOrigins: ['https://WWW.Example.com:443'] },
    });
    expect(put).toAnswer(200);
    expect(put.json.result.allowedOrigins).toEqual(['https://www.example.com']);
  });

  it('a session from the origin as a browser sends it starts, whatever case or default port was written', async () => {
    const res = await widgetWith(['https://Docs.Example.com:443']);
    expect(res).toAnswer(201);
    expect(await startSession(res.json.result.widgetKey, {}, 'https://docs.example.com')).toAnswer(201);
    expect(await startSession(res.json.result.widgetKey, {}, 'https://other.example.com')).toAnswer(403);
  });

  it('still refuses a path, plain http to a public host, and what is not an origin (400 naming the entry)', async () => {
    for (const origin of ['https://shop.example.com/page', 'http://shop.example.com', 'shop.example.com']) {
      const res = await widgetWith(['https://ok.example.com', origin]);
      expect(res, origin).toAnswer(400, 'VALIDATION_ERROR');
      expect(res.json.error.details.map((d: { path: string }) => d.path)).toEqual(['body.allowedOrigins.1']);
    }
  });
});
