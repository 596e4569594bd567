import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, orConflict, updateItem, type Change } from '#shared/data/commit.ts';
import { conflict, validationError } from '#shared/http/errors.ts';
import { nextVersionStatus, type VersionAction, type VersionStatus } from './lifecycle.ts';
import { queueEvaluation } from './evaluation.ts';
import { renderTemplate } from './placeholders.ts';
import { NOT_ARCHIVED, readPrompt, versionOf, writablePrompt } from './prompts.ts';
import { prompts } from './records.ts';

const CHANGED = 'The version or its prompt changed meanwhile';

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
const audit = (
  tenantId: string,
  actor: Principal,
  versionId: string,
  action: string,
  changes: Change['changes'],
): Change => ({
  tenantId,
  actor,
  entityType: 'PromptVersion',
  entityId: versionId,
  action,
  changes,
});

/** Draft -> Review; the prompt counts its versions in review (its lifecycleStatus shows Review). */
export async function reviewVersion(tenantId: string, promptId: string, versionId: string, actor: Principal) {
  const prompt = await writablePrompt(tenantId, promptId);
  const version = await versionOf(tenantId, prompt, versionId);
  const to = move(version.status, 'review');
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(
        updateItem(
          prompts.version(tenantId, promptId, version.versionNumber),
          { status: to, reviewedAt: now },
          statusIs('Draft'),
        ),
        CHANGED,
      ),
      orConflict(
        updateItem(prompts.key(tenantId, promptId), { updatedAt: now }, { ...NOT_ARCHIVED, add: { inReviewCount: 1 } }),
        CHANGED,
      ),
    ],
    audit(tenantId, actor, version.id, 'review', { promptId, from: version.status, to }),
    { now },
  );
  await queueEvaluation(tenantId, promptId, version.id);
}

/**
 * Review -> Approved -> Active in one write: the approved version becomes the prompt's Active
 * version and the one Active before it is Archived. The prompt's active version is a condition,
 * so of two approvals at once one wins and the other is 409.
 */
export async function approveVersion(tenantId: string, promptId: string, versionId: string, actor: Principal) {
  const prompt = await writablePrompt(tenantId, promptId);
  const version = await versionOf(tenantId, prompt, versionId);
  const to = move(version.status, 'approve');
  const previous = prompt.activeVersionNumber ?? null;
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(
        updateItem(
          prompts.version(tenantId, promptId, version.versionNumber),
          { status: to, approvedAt: now, approvedBy: actor.email ?? actor.userId },
          statusIs('Review'),
        ),
        CHANGED,
      ),
      previous === null
        ? null
        : orConflict(
            updateItem(
              prompts.version(tenantId, promptId, previous),
              { status: nextVersionStatus('Active', 'supersede'), archivedAt: now },
              statusIs('Active'),
            ),
            CHANGED,
          ),
      orConflict(
        updateItem(
          prompts.key(tenantId, promptId),
          { activeVersionId: version.id, activeVersionNumber: version.versionNumber, updatedAt: now },
          {
            add: { inReviewCount: -1 },
            condition: `${NOT_ARCHIVED.condition} AND activeVersionId = :prev`,
            values: { ...NOT_ARCHIVED.values, ':prev': prompt.activeVersionId ?? null },
          },
        ),
        CHANGED,
      ),
    ],
    audit(tenantId, actor, version.id, 'approve', {
      promptId,
      from: version.status,
      to,
      previousActiveVersionId: prompt.activeVersionId ?? null,
    }),
    { now },
  );
}

/** The Active version (or the named one) rendered with the variables; an archived prompt is 409. */
export async function renderPrompt(
  tenantId: string,
  promptId: string,
  input: { variables: Record<string, string>; versionId?: string },
) {
  const prompt = await readPrompt(tenantId, promptId);
  if (prompt.archivedAt) throw conflict('An archived prompt is not rendered');
  const versionId = input.versionId ?? prompt.activeVersionId;
  if (!versionId) throw conflict('The prompt has no Active version: approve one or name a versionId');
  const version = await versionOf(tenantId, prompt, versionId);
  const rendered = renderTemplate(version.content, input.variables);
  if (!rendered.ok)
    throw validationError(
      rendered.missing.map((name) => ({
        path: `body.variables.${name}`,
        message: `Missing value for placeholder {{${name}}}`,
      })),
    );
  return { promptId, versionId: version.id, versionNumber: String(version.versionNumber), text: rendered.text };
}
