/**
 * Prompt lifecycle. A version moves Draft -> Review (review) -> Approved -> Active (approve, in one
 * step: approving makes it the prompt's Active version) and an Active version becomes Archived when
 * another is approved. Nothing else moves; the prompt itself is Archived by DELETE.
 */
export const VERSION_STATUSES = ['Draft', 'Review', 'Approved', 'Active', 'Archived'] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];
export const PROMPT_STATUSES = ['Draft', 'Review', 'Active', 'Archived'] as const;
export type PromptStatus = (typeof PROMPT_STATUSES)[number];
export type VersionAction = 'review' | 'approve' | 'supersede';

const MOVES: Record<VersionAction, Partial<Record<VersionStatus, VersionStatus>>> = {
  review: { Draft: 'Review' },
  // Approved is passed through: the approved version becomes the Active one in the same write.
  approve: { Review: 'Active' },
  supersede: { Active: 'Archived' },
};

/** The status a version moves to, or null when the move is not allowed (409). */
export const nextVersionStatus = (from: VersionStatus, action: VersionAction): VersionStatus | null =>
  MOVES[action][from] ?? null;

/** The table documented in docs/decisions/prompts.md ("Prompt lifecycle"), derived from the moves above. */
export const versionMoveTable = () =>
  (Object.keys(MOVES) as VersionAction[]).flatMap((action) =>
    Object.entries(MOVES[action]).map(([from, to]) => ({ action, from: from as VersionStatus, to: to! })),
  );

/** A prompt's status from what it holds: archived, an active version, versions in review, or none of these. */
export function promptStatus(p: {
  archivedAt?: string | null;
  activeVersionId?: string | null;
  inReviewCount?: number;
}): PromptStatus {
  if (p.archivedAt) return 'Archived';
  if (p.activeVersionId) return 'Active';
  if ((p.inReviewCount ?? 0) > 0) return 'Review';
  return 'Draft';
}

/** Content limit, in UTF-8 bytes, and tags per prompt. */
export const MAX_CONTENT_BYTES = 100 * 1024;
export const MAX_TAGS = 20;
/** Versions per prompt: the prompt item maps each version id to its number. */
export const MAX_VERSIONS = 500;
