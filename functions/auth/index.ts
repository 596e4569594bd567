import { authRoutes } from '#areas/identity/routes/auth.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { finishExternal, startExternal } from '#areas/identity/auth/external.ts';
import { login } from '#areas/identity/auth/login.ts';
import { changePassword, forgotPassword, resetPassword } from '#areas/identity/auth/passwords.ts';
import { register } from '#areas/identity/auth/register.ts';
import { logout, refresh } from '#areas/identity/auth/tokens.ts';
import { resendVerification, verifyEmail } from '#areas/identity/auth/verification.ts';

export const handler = apiHandler(authRoutes, {
  'auth.register': async ({ body }) => await register(body),
  'auth.login': async ({ body, ip }) => await login(body, ip),
  'auth.providerA.start': async ({ body }) => await startExternal('identity-provider-a', body),
  'auth.providerA.callback': async ({ body, ip }) => await finishExternal('identity-provider-a', body, ip),
  'auth.providerB.start': async ({ body }) => await startExternal('identity-provider-b', body),
  'auth.providerB.callback': async ({ body, ip }) => await finishExternal('identity-provider-b', body, ip),
  'auth.refresh': async ({ principal, body, ip }) => await refresh(principal, body, ip),
  'auth.forgotPassword': async ({ body, ip }) => await forgotPassword(body, ip),
  'auth.resetPassword': async ({ body, ip }) => await resetPassword(body, ip),
  'auth.verifyEmail': async ({ body, ip }) => await verifyEmail(body, ip),
  'auth.resendVerification': async ({ body }) => await resendVerification(body),
  'auth.changePassword': async ({ principal, body, ip }) => await changePassword(principal, body, ip),
  'auth.logout': async ({ principal, body, ip }) => {
    await logout(principal, body, ip);
  },
});
