import { beforeAll, describe, expect, it } from 'vitest';
import { channelById } from '#areas/channels/lookups.ts';
import { resolveTenantSecret } from '#areas/vault/tenant-secrets.ts';
import { listNewestFirst } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { newPrompt } from '#test/support/agents.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { caller } from '#test/support/invoke.ts';
import { testParams } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';

let tenantA: string;
let ownerA: string;
let ownerB: string;
let agentId: string;
let owner: ReturnType<typeof caller>;
const SECRET = 'xoxb-very-secret-token-value-123';

beforeAll(async () => {
  tenantA = await newTenant({ planType: 2, maxAgents: 10 });
  const tenantB = await newTenant({ planType: 2, maxAgents: 10 });
  ownerA = await tokenFor({ tenantId: tenantA });
  ownerB = await tokenFor({ tenantId: tenantB });
  owner = caller('/api/ai', ownerA);
  agentId = (await owner.post('/agents', { name: 'Support', promptId: await newPrompt(ownerA) })).json.result.id;
});

const slack = async (extra: Record<string, unknown> = {}) => {
  const res = await owner.post('/channels', {
    type: 'slack',
    name: 'Team Slack',
    agentId,
    secrets: { 'bot-token': SECRET, 'signing-secret': 'sign-secret-456' },
    ...extra,
  });
  expect(res).toAnswer(201);
  return res;
};

describe('AI channel connections', () => {
  it('create stores credentials as tenant secrets, answers set/not set and the webhook URL, never a value', async () => {
    const res = await slack();
    const c = res.json.result;
    expect(res.text).not.toContain(SECRET);
    expect(c).toMatchObject({
      type: 'slack',
      agentId,
      isActive: true,
      secrets: { 'bot-token': true, 'signing-secret': true },
    });
    expect(c.webhookUrl).toMatch(new RegExp(`/api/webhooks/slack/${c.id}$`));
    const found = await channelById(c.id);
    expect(found?.tenantId).toBe(tenantA);
    const ref = found!.connection.secretRefs['bot-token']!;
    expect(ref).toBe(`vault://tenants/${tenantA}/channels/${c.id}/bot-token`);
    expect(await resolveTenantSecret(tenantA, ref)).toBe(SECRET);
    expect(JSON.stringify(found)).not.toContain(SECRET);
    // Neither the list nor the audit trail carries the value.
    expect((await owner.get('/channels?pageSize=100')).text).not.toContain(SECRET);
    const audit = await listNewestFirst(keys.platformCollection('AUDIT'), {
      page: 1,
      pageSize: 10,
      where: { entityId: c.id },
    });
    expect(JSON.stringify(audit.items)).not.toContain(SECRET);
  });

  it('a credential not given shows as not set; unknown settings or credentials are 400; an unknown agent is 400', async () => {
    const wa = await owner.post('/channels', {
      type: 'whatsapp',
      name: 'WA',
      agentId,
      settings: { phoneNumberId: '1234' },
      secrets: { 'access-token': 'tok-1' },
    });
    expect(wa).toAnswer(201);
    expect(wa.json.result.secrets).toEqual({ 'app-secret': false, 'verify-token': false, 'access-token': true });
    expect(wa.json.result.settings).toEqual({ phoneNumberId: '1234' });
    const bad = [
      { type: 'slack', settings: { phoneNumberId: '1' } },
      { type: 'telegram', secrets: { 'signing-secret': 'x' } },
      { type: 'slack', agentId: crypto.randomUUID() },
      { type: 'email' },
    ];
    for (const b of bad)
      expect((await owner.post('/channels', { name: 'x', agentId, ...b })).status, JSON.stringify(b)).toBe(400);
  });

  it('list pages newest first and filters by type', async () => {
    const t = await owner.post('/channels', { type: 'telegram', name: 'TG', agentId, secrets: { 'bot-token': 'b' } });
    const page = (await owner.get('/channels?type=telegram&pageSize=100')).json.result;
    expect(page.items.map((i: { id: string }) => i.id)).toContain(t.json.result.id);
    for (const i of page.items) expect(i.type).toBe('telegram');
  });

  it('PUT changes name, agent, settings and isActive; a secret given replaces the stored value', async () => {
    const c = (await slack()).json.result;
    const other = (await owner.post('/agents', { name: 'Other', promptId: await newPrompt(ownerA) })).json.result.id;
    const res = await owner.put(`/channels/${c.id}`, {
      name: 'Renamed',
      agentId: other,
      isActive: false,
      secrets: { 'bot-token': 'new-token' },
    });
    expect(res).toAnswer(200);
    expect(res.json.result).toMatchObject({
      name: 'Renamed',
      agentId: other,
      isActive: false,
      secrets: { 'bot-token': true },
    });
    expect(res.text).not.toContain('new-token');
    const found = await channelById(c.id);
    expect(await resolveTenantSecret(tenantA, found!.connection.secretRefs['bot-token']!)).toBe('new-token');
  });

  it('delete: 204, channelById finds nothing (the webhook answers 404), the secrets are gone', async () => {
    const c = (await slack()).json.result;
    expect(await owner.del(`/channels/${c.id}`)).toAnswer(204);
    expect(await channelById(c.id)).toBeNull();
    const left = Object.keys(testParams.dump()).filter((n) => n.includes(`/channels/${c.id}/`));
    expect(left).toEqual([]);
    expect(await owner.del(`/channels/${c.id}`)).toAnswer(404);
  });

  it("another tenant's connection is 404 and its list is its own", async () => {
    const c = (await slack()).json.result;
    const b = caller('/api/ai', ownerB);
    expect(await b.put(`/channels/${c.id}`, { name: 'x' })).toAnswer(404);
    expect(await b.del(`/channels/${c.id}`)).toAnswer(404);
    expect((await b.get('/channels')).json.result.items).toEqual([]);
    // An agent of another tenant cannot be bound.
    const bAgent = (await b.post('/agents', { name: 'B', promptId: await newPrompt(ownerB) })).json.result.id;
    expect(await owner.post('/channels', { type: 'slack', name: 'x', agentId: bAgent })).toAnswer(400);
  });
});
