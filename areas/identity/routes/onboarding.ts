import * as z from 'zod/mini';
import { email, nameText } from '#shared/routes/schemas.ts';
import { defineRoutes, scope } from '#shared/routes/types.ts';
import { duplicateEmail } from '#areas/identity/errors.ts';

export const onboardingRoutes = defineRoutes([
  {
    id: 'onboarding.start',
    method: 'POST',
    path: '/api/onboarding/start',
    group: 'onboarding',
    auth: { kind: 'none' },
    summary:
      'Start a tenant: creates it Pending (slug from tenantName, made unique) with its system roles and a ' +
      'TenantOwner invitation for `email`, and e-mails the code. Registering with the code joins the tenant; ' +
      'verifying the e-mail activates it',
    scope: scope.public,
    status: 201,
    errors: [duplicateEmail],
    // Counted with sign-in and registration: 5 per minute per IP.
    rateLimit: { name: 'auth-signin', limit: 5, windowSeconds: 60 },
    schemas: () => ({
      body: z.object({
        tenantName: nameText(200),
        email: email(),
        firstName: nameText(100),
        lastName: nameText(100),
      }),
      response: z.object({ invitationCode: z.string() }),
    }),
  },
]);
