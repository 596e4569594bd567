import { defineRoutes } from './types.ts';

export const userRoutes = defineRoutes([]);
