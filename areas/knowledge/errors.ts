import { defineError } from '#shared/http/errors.ts';

export const planLimitReached = defineError(
  409,
  'PLAN_LIMIT_REACHED',
  "The plan's knowledge base limit (maxKnowledgeBases) is reached",
);

/** An upload to a base at its chunk ceiling (docs/decisions/knowledge.md, "Ceilings"). */
export const knowledgeBaseFull = defineError(
  409,
  'KNOWLEDGE_BASE_FULL',
  (chunks: number = 1_000_000, ceiling: number = 1_000_000) =>
    `The knowledge base holds ${chunks.toLocaleString('en-US')} chunks; a base may hold at most ` +
    `${ceiling.toLocaleString('en-US')}. Delete documents or use another base`,
);

/** A source past the plan's sources per base (docs/decisions/knowledge.md, "Sources"). */
export const sourceLimitReached = defineError(
  409,
  'PLAN_LIMIT_REACHED',
  (limit: number = 2) => `The plan allows ${limit} sources per knowledge base`,
);
