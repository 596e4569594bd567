import type { Principal } from '#shared/auth/access-token.ts';
import { scopeRecord, scopeTenant } from '#shared/auth/tenant-scope.ts';

import { promptRoutes } from '#shared/routes/prompts.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import {
  archivePrompt,
  createPrompt,
  listPrompts,
  listVersions,
  newVersion,
  promptDetail,
  updatePrompt,
} from './prompts.ts';
import { approveVersion, renderPrompt, reviewVersion } from './versions.ts';

/** The tenant of a route under a prompt: a SystemAdmin may name the prompt by id alone. */
const ofPrompt = (p: Principal, tenantId: string | undefined, id: string) =>
  scopeRecord(p, tenantId, { collection: 'PROMPT', id: id.toLowerCase(), label: 'Prompt' });

export const handler = apiHandler(promptRoutes, {
  'prompts.list': async ({ principal, query }) =>
    await listPrompts(await scopeTenant(principal!, query.tenantId), query),
  'prompts.create': async ({ principal, body }) => {
    const { tenantId, ...input } = body;
    return await createPrompt(await scopeTenant(principal!, tenantId, 'body.tenantId'), input, principal!);
  },
  'prompts.get': async ({ principal, params, query }) =>
    await promptDetail(await ofPrompt(principal!, query.tenantId, params.promptId), params.promptId.toLowerCase()),
  'prompts.update': async ({ principal, params, query, body }) =>
    await updatePrompt(
      await ofPrompt(principal!, query.tenantId, params.promptId),
      params.promptId.toLowerCase(),
      body,
      principal!,
    ),
  'prompts.delete': async ({ principal, params, query }) => {
    await archivePrompt(
      await ofPrompt(principal!, query.tenantId, params.promptId),
      params.promptId.toLowerCase(),
      principal!,
    );
  },
  'prompts.newVersion': async ({ principal, params, query, body }) =>
    await newVersion(
      await ofPrompt(principal!, query.tenantId, params.promptId),
      params.promptId.toLowerCase(),
      body.versionNote,
      principal!,
    ),
  'prompts.versions': async ({ principal, params, query }) =>
    await listVersions(
      await ofPrompt(principal!, query.tenantId, params.promptId),
      params.promptId.toLowerCase(),
      query,
    ),
  'prompts.review': async ({ principal, params, query }) => {
    await reviewVersion(
      await ofPrompt(principal!, query.tenantId, params.promptId),
      params.promptId.toLowerCase(),
      params.versionId,
      principal!,
    );
  },
  'prompts.approve': async ({ principal, params, query }) => {
    await approveVersion(
      await ofPrompt(principal!, query.tenantId, params.promptId),
      params.promptId.toLowerCase(),
      params.versionId,
      principal!,
    );
  },
  'prompts.render': async ({ principal, params, query, body }) =>
    await renderPrompt(
      await ofPrompt(principal!, query.tenantId, params.promptId),
      params.promptId.toLowerCase(),
      body,
    ),
});
