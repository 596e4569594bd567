import { defineRoutes } from './types.ts';

export const onboardingRoutes = defineRoutes([]);
