import { expect } from 'vitest';
import { api, mintToken } from './e2e.ts';

const slug = () => `billing-${crypto.randomUUID().slice(0, 8)}`;

/** A tenant created by the administrator over HTTP, and a token of its owner. */
export async function billingTenant() {
  const admin = await mintToken({ role: 'SystemAdmin' });
  const s = slug();
  const tenant = await api('POST', '/api/tenants', {
    token: admin,
    body: {
      slug: s,
      name: `Story ${s}`,
      email: `${s}@example.com`,
      planType: 1,
      maxAgents: 1,
      maxKnowledgeBases: 1,
      maxSeats: 5,
    },
  });
  expect(tenant.status, tenant.text).toBe(201);
  const tenantId = tenant.json.result.id as string;
  return { tenantId, owner: await mintToken({ role: 'TenantOwner', tenantId }) };
}
