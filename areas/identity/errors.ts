import { defineError } from '#shared/http/errors.ts';

// Registration and sign-in (the guide names the first two).
export const duplicateEmail = defineError(400, 'DUPLICATE_EMAIL', 'An account with this e-mail already exists');
export const invalidCredentials = defineError(401, 'INVALID_CREDENTIALS', 'Invalid e-mail or password');
export const accountDisabled = defineError(403, 'ACCOUNT_DISABLED', 'This account is disabled');
export const tenantPending = defineError(403, 'TENANT_PENDING', 'Your organisation is not activated yet');
export const tenantSuspended = defineError(403, 'TENANT_SUSPENDED', 'Your organisation is suspended');
export const tenantCancelled = defineError(403, 'TENANT_CANCELLED', 'Your organisation has been cancelled');
export const tenantInactive = defineError(403, 'TENANT_INACTIVE', 'Your organisation is not active');
/** Why a tenant's users may not sign in or refresh: each refusal of tenant-status.ts. */
export const TENANT_REFUSALS = [tenantPending, tenantSuspended, tenantCancelled, tenantInactive] as const;

// E-mail verification and passwords.
export const invalidCode = defineError(400, 'INVALID_CODE', 'Invalid verification code');
export const codeExpired = defineError(400, 'CODE_EXPIRED', 'The verification code has expired; ask for a new one');
export const tooManyAttempts = defineError(400, 'TOO_MANY_ATTEMPTS', 'Too many wrong codes; ask for a new one');
export const invalidResetToken = defineError(400, 'INVALID_RESET_TOKEN', 'The reset token is invalid or has expired');
export const passwordNotSet = defineError(
  400,
  'PASSWORD_NOT_SET',
  'This account signs in through an identity provider; use forgot-password to set a password',
);
export const invalidCurrentPassword = defineError(
  400,
  'INVALID_CURRENT_PASSWORD',
  'The current password is not correct',
);
export const passwordUnchanged = defineError(
  400,
  'PASSWORD_UNCHANGED',
  'The new password must differ from the current one',
);

// Sign-in through an identity provider.
export const externalSignInNotConfigured = defineError(
  400,
  'EXTERNAL_SIGN_IN_NOT_CONFIGURED',
  'External sign-in is not configured on this stage (OAUTH_REDIRECT_ALLOWLIST is empty)',
);
export const invalidRedirectUri = defineError(400, 'INVALID_REDIRECT_URI', 'redirectUri is not on the allow-list');
export const invalidState = defineError(400, 'INVALID_STATE', 'Unknown, expired or already used sign-in state');
export const invalidClientBinding = defineError(
  400,
  'INVALID_CLIENT_BINDING',
  'This sign-in was started by another client',
);
export const invalidAuthorizationCode = defineError(
  400,
  'INVALID_AUTHORIZATION_CODE',
  'The identity provider rejected the authorization code',
);
export const providerEmailMissing = defineError(
  400,
  'PROVIDER_EMAIL_MISSING',
  'The identity provider did not share an e-mail address',
);
export const invalidIdToken = defineError(401, 'INVALID_ID_TOKEN', 'The identity provider token is not valid');
export const accountExists = defineError(
  409,
  'ACCOUNT_EXISTS',
  'An account with this e-mail already exists; sign in with its password',
);
/** The provider could not be reached or answered something unexpected. */
export const providerError = defineError(502, 'PROVIDER_ERROR', (message: string) => message, {
  example: ['The identity provider could not be reached'],
});

// Invitations and seats.
export const invalidInvitation = defineError(
  400,
  'INVALID_INVITATION',
  'The invitation code is invalid, used or expired',
);
export const seatLimitReached = defineError(409, 'SEAT_LIMIT_REACHED', 'The tenant has no free seats');

// The plan's entitlements (other areas' routes answer it through requireAgents).
export const featureNotInPlan = defineError(403, 'FEATURE_NOT_IN_PLAN', "The tenant's plan does not include AI agents");
