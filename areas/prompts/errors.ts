import { defineError } from '#shared/http/errors.ts';
import { MAX_VERSIONS } from './lifecycle.ts';

export const limitReached = defineError(
  409,
  'LIMIT_REACHED',
  (what: string = `${MAX_VERSIONS} versions`) => `A prompt keeps at most ${what}`,
);
