import { defineRoutes } from './types.ts';

export const orgRoutes = defineRoutes([]);
