import { defineError } from '#shared/http/errors.ts';

export const countedBefore = defineError(409, 'COUNTED_BEFORE', 'This record was counted before', {
  internal: "commitChunk catches it: a retried batch's record is dropped, the rest committed again",
});
