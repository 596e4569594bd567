import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { promptRoutes } from '#areas/prompts/routes.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import {
  archivePrompt,
  createPrompt,
  listPrompts,
  listVersions,
  newVersion,
  promptDetail,
  updatePrompt,
} from '#areas/prompts/prompts.ts';
import { approveVersion, renderPrompt, reviewVersion } from '#areas/prompts/versions.ts';
import { endAbTest, putAbTest, readAbTest } from '#areas/prompts/ab-test.ts';
import { readEvaluation } from '#areas/prompts/evaluation.ts';
import { addTestCase, deleteTestCase, listTestCases } from '#areas/prompts/test-cases.ts';

/** Wiring only: each route's tenant comes resolved from its declared scope (areas/prompts/routes.ts). */
export const handler = apiHandler(
  promptRoutes,
  {
    'prompts.list': ({ tenantId, query }) => listPrompts(tenantId, query),
    'prompts.create': ({ tenantId, body, principal }) => createPrompt(tenantId, body, principal),
    'prompts.get': ({ tenantId, params }) => promptDetail(tenantId, params.promptId),
    'prompts.update': ({ tenantId, params, body, principal }) =>
      updatePrompt(tenantId, params.promptId, body, principal),
    'prompts.delete': ({ tenantId, params, principal }) => archivePrompt(tenantId, params.promptId, principal),
    'prompts.newVersion': ({ tenantId, params, body, principal }) =>
      newVersion(tenantId, params.promptId, body.versionNote, principal),
    'prompts.versions': ({ tenantId, params, query }) => listVersions(tenantId, params.promptId, query),
    'prompts.review': ({ tenantId, params, principal }) =>
      reviewVersion(tenantId, params.promptId, params.versionId, principal),
    'prompts.approve': ({ tenantId, params, principal }) =>
      approveVersion(tenantId, params.promptId, params.versionId, principal),
    'prompts.render': ({ tenantId, params, body }) => renderPrompt(tenantId, params.promptId, body),
    'prompts.testCases.create': ({ tenantId, params, body, principal }) =>
      addTestCase(tenantId, params.promptId, body, principal),
    'prompts.testCases.list': ({ tenantId, params, query }) => listTestCases(tenantId, params.promptId, query),
    'prompts.testCases.delete': ({ tenantId, params, principal }) =>
      deleteTestCase(tenantId, params.promptId, params.testCaseId, principal),
    'prompts.abTest.put': ({ tenantId, params, body, principal }) =>
      putAbTest(tenantId, params.promptId, body, principal),
    'prompts.abTest.get': ({ tenantId, params }) => readAbTest(tenantId, params.promptId),
    'prompts.abTest.delete': ({ tenantId, params, principal }) => endAbTest(tenantId, params.promptId, principal),
    'prompts.evaluation': ({ tenantId, params }) => readEvaluation(tenantId, params.promptId, params.versionId),
  },
  { tenants: tenantDirectory },
);
