import { defineRoutes } from './types.ts';

export const vaultRoutes = defineRoutes([]);
