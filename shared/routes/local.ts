import { defineRoutes } from './types.ts';

/** Routes served only by the local server (`localOnly`): stand-ins for external providers. */
export const localRoutes = defineRoutes([]);
