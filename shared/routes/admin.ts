import { defineRoutes } from './types.ts';

export const adminRoutes = defineRoutes([]);
