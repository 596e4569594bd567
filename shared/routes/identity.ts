import { defineRoutes } from './types.ts';

export const identityRoutes = defineRoutes([]);
