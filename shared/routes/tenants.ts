import { defineRoutes } from './types.ts';

export const tenantRoutes = defineRoutes([]);
