import { Script } from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { widgetByKey } from '#areas/agents/widgets.ts';
import { AGENTS, newPrompt } from '#test/support/agents.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { caller, invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

let tenantA: string;
let ownerA: string;
let memberA: string;
let ownerB: string;
let agentId: string;
let owner: ReturnType<typeof caller>;

beforeAll(async () => {
  tenantA = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
  const tenantB = await newTenant({ planType: 2, maxAgents: 10 });
  ownerA = await tokenFor({ tenantId: tenantA });
  memberA = await tokenFor({ tenantId: tenantA, role: 'TenantMember' });
  ownerB = await tokenFor({ tenantId: tenantB });
  owner = caller('/api/ai', ownerA);
  const promptId = await newPrompt(ownerA);
  agentId = (await owner.post('/agents', { name: 'Support', promptId })).json.result.id;
});

const newWidget = async (body: Record<string, unknown> = {}) => {
  const res = await owner.post(`/agents/${agentId}/widgets`, {
    name: 'Site',
    allowedOrigins: ['https://shop.example.com'],
    ...body,
  });
  expect(res).toAnswer(201);
  return res.json.result as { id: string; widgetKey: string; [k: string]: unknown };
};

describe('AI widgets', () => {
  it('create answers the widget with a wk_ key and default theme; widgetByKey finds it and its tenant', async () => {
    const w = await newWidget({ theme: { position: 'left', title: 'Help' } });
    expect(w.widgetKey).toMatch(/^wk_[A-Za-z0-9_-]{43}$/);
    expect(w).toMatchObject({
      agentId,
      isActive: true,
      allowedOrigins: ['https://shop.example.com'],
      theme: { primaryColor: '#2563eb', position: 'left', title: 'Help' },
    });
    expect(await widgetByKey(w.widgetKey)).toEqual({
      tenantId: tenantA,
      widgetId: w.id,
      agentId,
      allowedOrigins: ['https://shop.example.com'],
      isActive: true,
      theme: { primaryColor: '#2563eb', position: 'left', title: 'Help' },
    });
    const list = (await owner.get(`/agents/${agentId}/widgets`)).json.result;
    expect(list.map((x: { id: string }) => x.id)).toContain(w.id);
  });

  it('allowedOrigins: https, or http for localhost only; anything else is 400', async () => {
    await newWidget({ allowedOrigins: ['http://localhost:5173', 'https://a.example.com/'] });
    for (const bad of ['http://shop.example.com', 'ftp://x.example.com', 'https://x.example.com/path', 'nope'])
      expect((await owner.post(`/agents/${agentId}/widgets`, { name: 'x', allowedOrigins: [bad] })).status).toBe(400);
    expect(await owner.post(`/agents/${agentId}/widgets`, { name: 'x', allowedOrigins: [] })).toAnswer(400);
  });

  it('rotate-key: a new key; the old one finds nothing at once', async () => {
    const w = await newWidget();
    const r = await owner.post(`/widgets/${w.id}/rotate-key`);
    expect(r).toAnswer(200);
    expect(r.json.result.widgetKey).not.toBe(w.widgetKey);
    expect(await widgetByKey(w.widgetKey)).toBeNull();
    expect((await widgetByKey(r.json.result.widgetKey))?.widgetId).toBe(w.id);
  });

  it('PUT changes origins, theme and isActive, and the key lookup follows', async () => {
    const w = await newWidget();
    const res = await owner.put(`/widgets/${w.id}`, {
      allowedOrigins: ['https://new.example.com'],
      theme: { primaryColor: '#112233' },
      isActive: false,
    });
    expect(res).toAnswer(200);
    expect(res.json.result).toMatchObject({
      name: 'Site',
      isActive: false,
      theme: { primaryColor: '#112233', position: 'right' },
    });
    expect(await widgetByKey(w.widgetKey)).toMatchObject({
      allowedOrigins: ['https://new.example.com'],
      isActive: false,
      theme: { primaryColor: '#112233', position: 'right' },
    });
  });

  it('embed gives a script tag with the widget script and the key; delete stops the key and frees the slot', async () => {
    const w = await newWidget();
    const e = await owner.get(`/widgets/${w.id}/embed`);
    expect(e).toAnswer(200);
    expect(e.json.result.snippet).toMatch(
      /^<script src="[^"]+\/api\/ai\/widget\.js" data-widget-key="wk_[^"]+" data-primary-color="#2563eb" data-position="right" data-title="Chat with us" async><\/script>$/,
    );
    expect(e.json.result.snippet).toContain(w.widgetKey);
    const used = async () => (await owner.get('/entitlements')).json.result.widgetIntegrations.used as number;
    const before = await used();
    expect(await owner.del(`/widgets/${w.id}`)).toAnswer(204);
    expect(await widgetByKey(w.widgetKey)).toBeNull();
    expect(await used()).toBe(before - 1);
    expect(await owner.get(`/widgets/${w.id}/embed`)).toAnswer(404);
    expect(await owner.del(`/widgets/${w.id}`)).toAnswer(404);
  });

  it("another tenant's widget is 404; a member may read but not write", async () => {
    const w = await newWidget();
    const b = caller('/api/ai', ownerB);
    expect(await b.put(`/widgets/${w.id}`, { name: 'x' })).toAnswer(404);
    expect(await b.post(`/widgets/${w.id}/rotate-key`)).toAnswer(404);
    expect(await b.get(`/agents/${agentId}/widgets`)).toAnswer(404);
    const m = caller('/api/ai', memberA);
    expect(await m.get(`/agents/${agentId}/widgets`)).toAnswer(200);
    expect(await m.post(`/widgets/${w.id}/rotate-key`)).toAnswer(403);
  });

  it('maxWidgetIntegrations: the plan limit refuses with 409 PLAN_LIMIT_REACHED', async () => {
    const t = await newTenant({ planType: 1, maxAgents: 1 }); // Starter: one widget
    const token = await tokenFor({ tenantId: t });
    const a = (await invoke('POST', AGENTS, { token, body: { name: 'A', promptId: await newPrompt(token) } })).json
      .result.id;
    const body = { name: 'W', allowedOrigins: ['https://a.example.com'] };
    expect(await invoke('POST', `${AGENTS}/${a}/widgets`, { token, body })).toAnswer(201);
    const second = await invoke('POST', `${AGENTS}/${a}/widgets`, { token, body });
    expect(second).toAnswer(409, 'PLAN_LIMIT_REACHED');
  });
});

describe('GET /api/ai/widget.js', () => {
  it('is public, text/javascript, cached, valid script, and calls only the API it came from', async () => {
    const res = await invoke('GET', '/api/ai/widget.js', {});
    expect(res).toAnswer(200);
    expect(res.headers['content-type']).toMatch(/^text\/javascript/);
    expect(res.headers['cache-control']).toMatch(/max-age=\d+/);
    expect(() => new Script(res.text)).not.toThrow();
    expect(res.text).toContain('data-widget-key');
    // No absolute URL of its own (the SVG namespace names no place): every request goes to the origin of its src.
    expect(res.text.match(/https?:\/\/[^\s'"`]+/g)?.filter((u) => u !== 'http://www.w3.org/2000/svg') ?? []).toEqual(
      [],
    );
    for (const path of ['/sessions', '/messages', '/escalate', '/feedback', 'text/event-stream', 'X-Widget-Session'])
      expect(res.text).toContain(path);
  });

  it('is gzipped for a client that accepts it, the same script under the same ETag', async () => {
    const plain = await invoke('GET', '/api/ai/widget.js', {});
    const zipped = await invoke('GET', '/api/ai/widget.js', { headers: { 'accept-encoding': 'gzip, br' } });
    expect(zipped).toAnswer(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.etag).toBe(plain.headers.etag);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gunzipSync(Buffer.from(zipped.text, 'base64')).toString('utf8')).toBe(plain.text);
  });
});
