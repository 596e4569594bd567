import { defineError } from '#shared/http/errors.ts';
import { MAX_VERSIONS } from './lifecycle.ts';

export const limitReached = defineError(409, 'LIMIT_REACHED', `A prompt keeps at most ${MAX_VERSIONS} versions`);
