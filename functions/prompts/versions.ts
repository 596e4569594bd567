import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, readOr404, updateItem } from '#shared/data/commit.ts';
import { conflict, validationError } from '#shared/http/errors.ts';
import { nextVersionStatus, type VersionAction, type VersionStatus } from './lifecycle.ts';
import { renderTemplate } from './placeholders.ts';
import { NOT_ARCHIVED, prompts, versionOf, writablePrompt } from './prompts.ts';

function move(status: VersionStatus, action: VersionAction) {
  const to = nextVersionStatus(status, action);
  if (!to) throw conflict(`A ${status} version cannot be sent to ${action === 'review' ? 'Review' : 'approval'}`);
  return to;
}
const statusIs = (status: VersionStatus) => ({
  condition: '#st = :from',
  names: { '#st': 'status' },
  values: { ':from': status },
});

/** Draft -> Review; the prompt counts its versions in review (its lifecycleStatus shows Review). */
export async function reviewVersion(t: string, promptId: string, versionId: string, actor: Principal) {
  const prompt = await writablePrompt(t, promptId);
  const version = await versionOf(t, prompt, versionId);
  const to = move(version.status as VersionStatus, 'review');
  const now = new Date().toISOString();
  await commitChange(
    [
      updateItem(
        prompts.version(t, promptId, Number(version.versionNumber)),
        { status: to, reviewedAt: now },
        statusIs('Draft'),
      ),
      updateItem(
        prompts.key(t, promptId),
        { updatedAt: now },
        { add: { inReviewCount: 1 }, condition: NOT_ARCHIVED, values: { ':null': null } },
      ),
    ],
    {
      tenantId: t,
      actor,
      entityType: 'PromptVersion',
      entityId: version.id as string,
      action: 'review',
      changes: { promptId, from: version.status, to },
    },
    now,
    'The version or its prompt changed meanwhile',
  );
}

/**
 * Review -> Approved -> Active in one write: the approved version becomes the prompt's Active
 * version and the one Active before it is Archived. The prompt's active version is a condition,
 * so of two approvals at once one wins and the other is 409.
 */
export async function approveVersion(t: string, promptId: string, versionId: string, actor: Principal) {
  const prompt = await writablePrompt(t, promptId);
  const version = await versionOf(t, prompt, versionId);
  const to = move(version.status as VersionStatus, 'approve');
  const previous = (prompt.activeVersionNumber as number | null) ?? null;
  const now = new Date().toISOString();
  await commitChange(
    [
      updateItem(
        prompts.version(t, promptId, Number(version.versionNumber)),
        { status: to, approvedAt: now, approvedBy: actor.email ?? actor.userId },
        statusIs('Review'),
      ),
      previous === null
        ? null
        : updateItem(
            prompts.version(t, promptId, previous),
            { status: nextVersionStatus('Active', 'supersede'), archivedAt: now },
            statusIs('Active'),
          ),
      updateItem(
        prompts.key(t, promptId),
        { activeVersionId: version.id, activeVersionNumber: Number(version.versionNumber), updatedAt: now },
        {
          add: { inReviewCount: -1 },
          condition: `${NOT_ARCHIVED} AND activeVersionId = :prev`,
          values: { ':null': null, ':prev': prompt.activeVersionId ?? null },
        },
      ),
    ],
    {
      tenantId: t,
      actor,
      entityType: 'PromptVersion',
      entityId: version.id as string,
      action: 'approve',
      changes: { promptId, from: version.status, to, previousActiveVersionId: prompt.activeVersionId ?? null },
    },
    now,
    'The version or its prompt changed meanwhile',
  );
}

/** The Active version (or the named one) rendered with the variables; an archived prompt is 409. */
export async function renderPrompt(
  t: string,
  promptId: string,
  input: { variables: Record<string, string>; versionId?: string },
) {
  const prompt = await readOr404(prompts.key(t, promptId), 'Prompt');
  if (prompt.archivedAt) throw conflict('An archived prompt is not rendered');
  const versionId = input.versionId ?? (prompt.activeVersionId as string | null);
  if (!versionId) throw conflict('The prompt has no Active version: approve one or name a versionId');
  const version = await versionOf(t, prompt, versionId);
  const rendered = renderTemplate(version.content as string, input.variables);
  if (!rendered.ok)
    throw validationError(
      rendered.missing.map((name) => ({
        path: `body.variables.${name}`,
        message: `Missing value for placeholder {{${name}}}`,
      })),
    );
  return {
    promptId,
    versionId: version.id as string,
    versionNumber: String(version.versionNumber),
    text: rendered.text,
  };
}
