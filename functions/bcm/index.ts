import type { Principal } from '#shared/auth/access-token.ts';
import { scopeRecord, scopeTenant } from '#shared/auth/tenant-scope.ts';
import type { TenantCollection } from '#shared/data/keys.ts';

import { bcmRoutes } from '#shared/routes/bcm.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import {
  assign,
  biaDetail,
  createBia,
  deleteBia,
  listBias,
  newVersion,
  setBiaStatus,
  unassign,
  updateBia,
} from './bias.ts';
import { dashboard, putThresholds, thresholds } from './dashboard.ts';
import { completeEntry, createEntry, deleteEntry, getEntry, listEntries, replacePart, updateEntry } from './entries.ts';
import {
  createAction,
  createAssessment,
  createRisk,
  deleteAssessment,
  listRisks,
  riskDetail,
  setRiskStatus,
  updateAction,
  updateAssessment,
} from './risks.ts';

/** The tenant of a route under a BIA or a risk: a SystemAdmin may name the parent by id alone. */
const under =
  (collection: TenantCollection, label: string) => (p: Principal, tenantId: string | undefined, id: string) =>
    scopeRecord(p, tenantId, { collection, id: id.toLowerCase(), label });
const ofBia = under('BIA', 'BIA');
const ofRisk = under('RISK', 'Risk');

export const handler = apiHandler(bcmRoutes, {
  'bcm.bia.list': async ({ principal, query }) => await listBias(await scopeTenant(principal!, query.tenantId), query),
  'bcm.bia.get': async ({ principal, params, query }) =>
    await biaDetail(await ofBia(principal!, query.tenantId, params.biaId), params.biaId.toLowerCase()),
  'bcm.bia.create': async ({ principal, body }) => {
    const { tenantId, ...input } = body;
    return await createBia(await scopeTenant(principal!, tenantId, 'body.tenantId'), input, principal!);
  },
  'bcm.bia.update': async ({ principal, params, query, body }) =>
    await updateBia(
      await ofBia(principal!, query.tenantId, params.biaId),
      params.biaId.toLowerCase(),
      body,
      principal!,
    ),
  'bcm.bia.status': async ({ principal, params, query, body }) =>
    await setBiaStatus(
      await ofBia(principal!, query.tenantId, params.biaId),
      params.biaId.toLowerCase(),
      body.newStatus,
      principal!,
    ),
  'bcm.bia.newVersion': async ({ principal, params, query }) =>
    await newVersion(await ofBia(principal!, query.tenantId, params.biaId), params.biaId.toLowerCase(), principal!),
  'bcm.bia.delete': async ({ principal, params, query }) => {
    await deleteBia(await ofBia(principal!, query.tenantId, params.biaId), params.biaId.toLowerCase(), principal!);
  },
  'bcm.bia.assign': async ({ principal, params, query, body }) =>
    await assign(await ofBia(principal!, query.tenantId, params.biaId), params.biaId.toLowerCase(), body, principal!),
  'bcm.bia.unassign': async ({ principal, params, query }) => {
    await unassign(
      await ofBia(principal!, query.tenantId, params.biaId),
      params.biaId.toLowerCase(),
      params.assignmentId,
      principal!,
    );
  },
  'bcm.entries.list': async ({ principal, params, query }) =>
    await listEntries(await ofBia(principal!, query.tenantId, params.biaId), params.biaId.toLowerCase(), query),
  'bcm.entries.get': async ({ principal, params, query }) =>
    await getEntry(await ofBia(principal!, query.tenantId, params.biaId), params.biaId.toLowerCase(), params.entryId),
  'bcm.entries.create': async ({ principal, params, query, body }) =>
    await createEntry(
      await ofBia(principal!, query.tenantId, params.biaId),
      params.biaId.toLowerCase(),
      body,
      principal!,
    ),
  'bcm.entries.update': async ({ principal, params, query, body }) =>
    await updateEntry(
      await ofBia(principal!, query.tenantId, params.biaId),
      params.biaId.toLowerCase(),
      params.entryId,
      body,
      principal!,
    ),
  'bcm.entries.delete': async ({ principal, params, query }) => {
    await deleteEntry(
      await ofBia(principal!, query.tenantId, params.biaId),
      params.biaId.toLowerCase(),
      params.entryId,
      principal!,
    );
  },
  'bcm.entries.complete': async ({ principal, params, query }) =>
    await completeEntry(
      await ofBia(principal!, query.tenantId, params.biaId),
      params.biaId.toLowerCase(),
      params.entryId,
      principal!,
    ),
  'bcm.entries.part': async ({ principal, params, query, body }) =>
    await replacePart(
      await ofBia(principal!, query.tenantId, params.biaId),
      params.biaId.toLowerCase(),
      params.entryId,
      params.part,
      body,
      principal!,
    ),
  'bcm.risks.list': async ({ principal, query }) =>
    await listRisks(await scopeTenant(principal!, query.tenantId), query),
  'bcm.risks.get': async ({ principal, params, query }) =>
    await riskDetail(await ofRisk(principal!, query.tenantId, params.riskId), params.riskId.toLowerCase()),
  'bcm.risks.create': async ({ principal, body }) => {
    const { tenantId, ...input } = body;
    return await createRisk(await scopeTenant(principal!, tenantId, 'body.tenantId'), input, principal!);
  },
  'bcm.risks.status': async ({ principal, params, query, body }) =>
    await setRiskStatus(
      await ofRisk(principal!, query.tenantId, params.riskId),
      params.riskId.toLowerCase(),
      body.newStatus,
      principal!,
    ),
  'bcm.assessments.create': async ({ principal, params, query, body }) =>
    await createAssessment(
      await ofRisk(principal!, query.tenantId, params.riskId),
      params.riskId.toLowerCase(),
      body,
      principal!,
    ),
  'bcm.assessments.update': async ({ principal, params, query, body }) =>
    await updateAssessment(
      await ofRisk(principal!, query.tenantId, params.riskId),
      params.riskId.toLowerCase(),
      params.assessmentId,
      body,
      principal!,
    ),
  'bcm.assessments.delete': async ({ principal, params, query }) => {
    await deleteAssessment(
      await ofRisk(principal!, query.tenantId, params.riskId),
      params.riskId.toLowerCase(),
      params.assessmentId,
      principal!,
    );
  },
  'bcm.actions.create': async ({ principal, params, query, body }) =>
    await createAction(
      await ofRisk(principal!, query.tenantId, params.riskId),
      params.riskId.toLowerCase(),
      params.assessmentId,
      body,
      principal!,
    ),
  'bcm.actions.update': async ({ principal, params, query, body }) =>
    await updateAction(
      await ofRisk(principal!, query.tenantId, params.riskId),
      params.riskId.toLowerCase(),
      params.assessmentId,
      params.actionId,
      body,
      principal!,
    ),
  'bcm.thresholds.get': async ({ principal, query }) => await thresholds(await scopeTenant(principal!, query.tenantId)),
  'bcm.thresholds.put': async ({ principal, query, body }) =>
    await putThresholds(await scopeTenant(principal!, query.tenantId), body.thresholds, principal!),
  'bcm.dashboard': async ({ principal, query }) => await dashboard(await scopeTenant(principal!, query.tenantId)),
});
