import { defineError } from '#shared/http/errors.ts';

export const planLimitReached = defineError(
  409,
  'PLAN_LIMIT_REACHED',
  "The plan's knowledge base limit (maxKnowledgeBases) is reached",
);
