import { adminMadeTenant } from './e2e.ts';

/** A tenant created by the administrator over HTTP, and a token of its owner. */
export async function billingTenant() {
  const { tenantId, owner } = await adminMadeTenant({
    slugPrefix: 'billing',
    planType: 1,
    maxAgents: 1,
    maxKnowledgeBases: 1,
  });
  return { tenantId, owner };
}
