import { expect } from 'vitest';
import { adminWithTenant, ok, type Story } from '../story.ts';

/** A tenant's BIA with an entry and a part, a risk with an assessment and an action (each create answers its record), and the dashboard. */
export const story: Story = async (ctx) => {
  const { admin, tenant } = await adminWithTenant(ctx, 'bcm');
  const bia = ok(
    'bia',
    await admin.POST('/api/bcm/admin/bia', { body: { title: 'Payroll', tenantId: tenant.id } }),
  ).result;
  const path = { biaId: bia.id };
  const entry = ok(
    'entry',
    await admin.POST('/api/bcm/admin/bia/{biaId}/entries', {
      params: { path },
      body: { briefDescription: 'Run payroll' },
    }),
  ).result;
  const part = ok(
    'part',
    await admin.PUT('/api/bcm/admin/bia/{biaId}/entries/{entryId}/{part}', {
      params: { path: { ...path, entryId: entry.id, part: 'digital-assets' } },
      body: [{ name: 'Ledger', description: null }],
    }),
  ).result;
  expect(part.digitalAssets).toEqual([{ name: 'Ledger', description: null }]);
  const risk = ok(
    'risk',
    await admin.POST('/api/bcm/admin/risk', { body: { title: 'Flood', category: 1, level: 2, tenantId: tenant.id } }),
  ).result;
  const assessed = ok(
    'assessment',
    await admin.POST('/api/bcm/admin/risk/{riskId}/risks', {
      params: { path: { riskId: risk.id } },
      body: { name: 'Q1', score: 12 },
    }),
  ).result;
  expect(assessed).toMatchObject({ riskId: risk.id, name: 'Q1', score: 12 });
  const action = ok(
    'action',
    await admin.POST('/api/bcm/admin/risk/{riskId}/risks/{assessmentId}/actions', {
      params: { path: { riskId: risk.id, assessmentId: assessed.id } },
      body: { title: 'Sandbags' },
    }),
  ).result;
  expect(action).toMatchObject({ riskId: risk.id, assessmentId: assessed.id, status: 0 });
  const detail = ok(
    'risk detail',
    await admin.GET('/api/bcm/admin/risk/{riskId}', { params: { path: { riskId: risk.id } } }),
  ).result;
  expect(detail.probabilityScore).toBe(3);
  expect(detail.risks.map((r) => r.id)).toEqual([assessed.id]);
  expect(detail.mitigationActions.map((a) => a.id)).toEqual([action.id]);
  const dash = ok(
    'dashboard',
    await admin.GET('/api/bcm/admin/dashboard', { params: { query: { tenantId: tenant.id } } }),
  ).result;
  expect(dash).toMatchObject({ totalAssessments: 1, criticalFunctions: { identified: 1 } });
};
