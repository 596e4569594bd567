import { defineRoutes } from './types.ts';

export const authRoutes = defineRoutes([]);
