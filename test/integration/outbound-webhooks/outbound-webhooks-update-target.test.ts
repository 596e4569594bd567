import { beforeAll, describe, expect, it, vi } from 'vitest';
import { subscriptionKey } from '#areas/outbound-webhooks/records.ts';
import { get } from '#shared/data/read.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

// Nothing here connects: the refused addresses are stored configuration, checked at validation.
vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '0');

const BASE = '/api/webhook-subscriptions';
let tenantId: string;
let owner: string;

beforeAll(async () => {
  tenantId = await newTenant();
  owner = await tokenFor({ tenantId });
});

const stored = (id: string) =>
  get<{ url: string; revision: number }>(subscriptionKey(tenantId, id), { consistent: true });

describe('an update to a URL a create refuses', () => {
  it.each([
    ['a private address', 'https://10.0.0.5/hook'],
    ['the metadata address', 'https://169.254.169.254/latest/meta-data'],
    ['an IPv6 unique-local address', 'https://[fd00:ec2::254]/x'],
    ['plain http', 'http://example.com/hook'],
    ['credentials in the URL', 'https://user:pw@example.com/x'],
  ])('%s answers 400 TARGET_NOT_ALLOWED and keeps the stored URL and revision', async (_what, url) => {
    const created = await invoke('POST', BASE, {
      token: owner,
      body: { url: 'https://hooks.example.com/in', eventTypes: ['message.created'] },
    });
    expect(created).toAnswer(201);
    const id = created.json.result.id as string;
    const before = await stored(id);

    const res = await invoke('PUT', `${BASE}/${id}`, {
      token: owner,
      body: { url, eventTypes: ['message.created'] },
    });

    expect(res).toAnswer(400, 'TARGET_NOT_ALLOWED');
    expect(await stored(id)).toMatchObject({ url: before!.url, revision: before!.revision });
    const read = await invoke('GET', `${BASE}/${id}`, { token: owner });
    expect(read.json.result.url).toBe('https://hooks.example.com/in');
  });
});
