import { onboardingRoutes } from '#areas/identity/routes/onboarding.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { startOnboarding } from '#areas/identity/onboarding/start.ts';

export const handler = apiHandler(onboardingRoutes, {
  'onboarding.start': async ({ body }) => await startOnboarding(body),
});
