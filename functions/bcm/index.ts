import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { bcmRoutes } from '#areas/bcm/routes.ts';
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
} from '#areas/bcm/bias.ts';
import { dashboard, putThresholds, thresholds } from '#areas/bcm/dashboard.ts';
import {
  completeEntry,
  createEntry,
  deleteEntry,
  getEntry,
  listEntries,
  replacePart,
  updateEntry,
} from '#areas/bcm/entries.ts';
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
} from '#areas/bcm/risks.ts';

/** Wiring only: each route's tenant comes resolved from its declared scope (areas/bcm/routes.ts). */
export const handler = apiHandler(
  bcmRoutes,
  {
    'bcm.bia.list': ({ tenantId, query }) => listBias(tenantId, query),
    'bcm.bia.get': ({ tenantId, params }) => biaDetail(tenantId, params.biaId),
    'bcm.bia.create': ({ tenantId, body, principal }) => createBia(tenantId, body, principal),
    'bcm.bia.update': ({ tenantId, params, body, principal }) => updateBia(tenantId, params.biaId, body, principal),
    'bcm.bia.status': ({ tenantId, params, body, principal }) =>
      setBiaStatus(tenantId, params.biaId, body.newStatus, principal),
    'bcm.bia.newVersion': ({ tenantId, params, principal }) => newVersion(tenantId, params.biaId, principal),
    'bcm.bia.delete': ({ tenantId, params, principal }) => deleteBia(tenantId, params.biaId, principal),
    'bcm.bia.assign': ({ tenantId, params, body, principal }) => assign(tenantId, params.biaId, body, principal),
    'bcm.bia.unassign': ({ tenantId, params, principal }) =>
      unassign(tenantId, params.biaId, params.assignmentId, principal),
    'bcm.entries.list': ({ tenantId, params, query }) => listEntries(tenantId, params.biaId, query),
    'bcm.entries.get': ({ tenantId, params }) => getEntry(tenantId, params.biaId, params.entryId),
    'bcm.entries.create': ({ tenantId, params, body, principal }) =>
      createEntry(tenantId, params.biaId, body, principal),
    'bcm.entries.update': ({ tenantId, params, body, principal }) =>
      updateEntry(tenantId, params.biaId, params.entryId, body, principal),
    'bcm.entries.delete': ({ tenantId, params, principal }) =>
      deleteEntry(tenantId, params.biaId, params.entryId, principal),
    'bcm.entries.complete': ({ tenantId, params, principal }) =>
      completeEntry(tenantId, params.biaId, params.entryId, principal),
    'bcm.entries.part': ({ tenantId, params, body, principal }) =>
      replacePart(tenantId, params.biaId, params.entryId, params.part, body, principal),
    'bcm.risks.list': ({ tenantId, query }) => listRisks(tenantId, query),
    'bcm.risks.get': ({ tenantId, params }) => riskDetail(tenantId, params.riskId),
    'bcm.risks.create': ({ tenantId, body, principal }) => createRisk(tenantId, body, principal),
    'bcm.risks.status': ({ tenantId, params, body, principal }) =>
      setRiskStatus(tenantId, params.riskId, body.newStatus, principal),
    'bcm.assessments.create': ({ tenantId, params, body, principal }) =>
      createAssessment(tenantId, params.riskId, body, principal),
    'bcm.assessments.update': ({ tenantId, params, body, principal }) =>
      updateAssessment(tenantId, params.riskId, params.assessmentId, body, principal),
    'bcm.assessments.delete': ({ tenantId, params, principal }) =>
      deleteAssessment(tenantId, params.riskId, params.assessmentId, principal),
    'bcm.actions.create': ({ tenantId, params, body, principal }) =>
      createAction(tenantId, params.riskId, params.assessmentId, body, principal),
    'bcm.actions.update': ({ tenantId, params, body, principal }) =>
      updateAction(tenantId, params.riskId, params.assessmentId, params.actionId, body, principal),
    'bcm.thresholds.get': ({ tenantId }) => thresholds(tenantId),
    'bcm.thresholds.put': ({ tenantId, body, principal }) => putThresholds(tenantId, body.thresholds, principal),
    'bcm.dashboard': ({ tenantId }) => dashboard(tenantId),
  },
  { tenants: tenantDirectory },
);
