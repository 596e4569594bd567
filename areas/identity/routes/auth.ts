import * as z from 'zod/mini';
import { givenPassword, newPassword } from '#areas/identity/password-policy.ts';
import { VERIFICATION_CODE_PATTERN } from '#areas/identity/vocabulary.ts';
import { email, nameText, nullResult, optionalText, text } from '#shared/routes/schemas.ts';
import { defineRoutes, once, type RateLimitRule, scope } from '#shared/routes/types.ts';
import {
  accountDisabled,
  accountExists,
  codeExpired,
  duplicateEmail,
  externalSignInNotConfigured,
  invalidAuthorizationCode,
  invalidClientBinding,
  invalidCode,
  invalidCredentials,
  invalidCurrentPassword,
  invalidIdToken,
  invalidInvitation,
  invalidRedirectUri,
  invalidResetToken,
  invalidState,
  passwordNotSet,
  passwordUnchanged,
  providerEmailMissing,
  providerError,
  seatLimitReached,
  TENANT_REFUSALS,
  tooManyAttempts,
} from '#areas/identity/errors.ts';

/** What an identity provider's callback can refuse: the flow, the provider's answer, the account. */
const EXTERNAL_CALLBACK = [
  externalSignInNotConfigured,
  invalidRedirectUri,
  invalidState,
  invalidClientBinding,
  invalidAuthorizationCode,
  invalidIdToken,
  providerEmailMissing,
  accountExists,
  accountDisabled,
  ...TENANT_REFUSALS,
  providerError,
];

/** Sign-in, registration, external sign-in start and change-password: 5 per minute per IP. */
const SIGN_IN_LIMIT: RateLimitRule = { name: 'auth-signin', limit: 5, windowSeconds: 60 };
/** OAuth callbacks and one-time-code checks (verify-email, reset-password): 5 per 15 minutes per IP. */
const ONE_TIME_CODE_LIMIT: RateLimitRule = { name: 'auth-otp', limit: 5, windowSeconds: 900 };
/** Routes that send e-mail (forgot-password, resend-verification): 5 per minute per IP. */
const MAIL_LIMIT: RateLimitRule = { name: 'auth-mail', limit: 5, windowSeconds: 60 };

const opaqueToken = () =>
  z.string().check(z.minLength(1), z.maxLength(512), z.regex(/^[A-Za-z0-9_-]+$/, 'Malformed token'));
const sixDigitCode = () => z.string().check(z.trim(), z.regex(VERIFICATION_CODE_PATTERN, 'Expected a 6-digit code'));
const redirectUri = () => text(2048);

const authenticatedUserSchema = once(() =>
  z.object({
    id: z.string(),
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    roles: z.array(z.string()),
    tenantId: z.nullable(z.string()),
    permissions: z.array(z.string()),
    avatarUrl: z.nullable(z.string()),
  }),
);

const authResultSchema = once(() =>
  z.object({
    accessToken: z.string(),
    refreshToken: z.string(),
    expiresIn: z.number(),
    user: authenticatedUserSchema(),
    requiredEmailVerification: z.boolean(),
  }),
);

const tokenPairSchema = once(() =>
  z.object({ accessToken: z.string(), refreshToken: z.string(), expiresIn: z.number() }),
);

const externalStartSchema = once(() =>
  z.object({
    authorizationUrl: z.string(),
    state: z.string(),
    /** Kept by the client, sent back with the callback; never part of any URL. */
    clientBinding: z.string(),
    clientId: z.string(),
  }),
);
const callbackBody = once(() =>
  z.object({ code: text(2048), state: text(512), clientBinding: text(512), redirectUri: redirectUri() }),
);

const none = { kind: 'none' } as const;

export const authRoutes = defineRoutes([
  {
    id: 'auth.register',
    method: 'POST',
    path: '/api/auth/register',
    group: 'auth',
    auth: none,
    summary:
      'Create an account and e-mail a 6-digit verification code; with `invitationCode` it joins that tenant with ' +
      'the invitation roles (400 INVALID_INVITATION, 409 SEAT_LIMIT_REACHED)',
    scope: scope.account,
    status: 201,
    errors: [duplicateEmail, invalidInvitation, seatLimitReached],
    rateLimit: SIGN_IN_LIMIT,
    schemas: () => ({
      body: z.object({
        email: email(),
        password: newPassword(),
        firstName: nameText(100),
        lastName: nameText(100),
        phoneNumber: optionalText(40),
        invitationCode: optionalText(512),
      }),
      response: z.object({ id: z.string(), email: z.string(), isActive: z.boolean() }),
    }),
  },
  {
    id: 'auth.login',
    method: 'POST',
    path: '/api/auth/login',
    group: 'auth',
    auth: none,
    summary:
      'Sign in with e-mail and password; 401 INVALID_CREDENTIALS, 403 ACCOUNT_DISABLED or TENANT_*, 429 after 10 ' +
      'failures for the account in 15 minutes unless `deviceToken` is one this account was given',
    scope: scope.account,
    status: 200,
    errors: [invalidCredentials, accountDisabled, ...TENANT_REFUSALS],
    rateLimit: SIGN_IN_LIMIT,
    schemas: () => ({
      body: z.object({
        email: email(),
        password: givenPassword(),
        rememberMe: z.optional(z.boolean()),
        /** From an earlier successful sign-in of this account on this client: passes the account throttle. */
        deviceToken: optionalText(512),
      }),
      response: z.extend(authResultSchema(), { deviceToken: z.optional(z.string()) }),
    }),
  },
  {
    id: 'auth.providerA.start',
    method: 'POST',
    path: '/api/auth/login/identity-provider-a',
    group: 'auth',
    auth: none,
    summary: 'Start sign-in with identity provider A (OpenID Connect authorization code with PKCE)',
    scope: scope.account,
    status: 200,
    errors: [externalSignInNotConfigured, invalidRedirectUri],
    rateLimit: SIGN_IN_LIMIT,
    schemas: () => ({
      body: z.object({ redirectUri: redirectUri() }),
      response: externalStartSchema(),
    }),
  },
  {
    id: 'auth.providerA.callback',
    method: 'POST',
    path: '/api/auth/login/identity-provider-a/callback',
    group: 'auth',
    auth: none,
    summary: 'Finish sign-in with identity provider A: `state` and the `clientBinding` the start call returned',
    scope: scope.account,
    status: 200,
    errors: EXTERNAL_CALLBACK,
    rateLimit: ONE_TIME_CODE_LIMIT,
    schemas: () => ({
      body: callbackBody(),
      response: authResultSchema(),
    }),
  },
  {
    id: 'auth.providerB.start',
    method: 'POST',
    path: '/api/auth/login/identity-provider-b',
    group: 'auth',
    auth: none,
    summary: 'Start sign-in with identity provider B (OpenID Connect authorization code with PKCE)',
    scope: scope.account,
    status: 200,
    errors: [externalSignInNotConfigured, invalidRedirectUri],
    rateLimit: SIGN_IN_LIMIT,
    schemas: () => ({
      body: z.object({ redirectUri: redirectUri() }),
      response: externalStartSchema(),
    }),
  },
  {
    id: 'auth.providerB.callback',
    method: 'POST',
    path: '/api/auth/login/identity-provider-b/callback',
    group: 'auth',
    auth: none,
    summary: 'Finish sign-in with identity provider B: `state` and the `clientBinding` the start call returned',
    scope: scope.account,
    status: 200,
    errors: EXTERNAL_CALLBACK,
    rateLimit: ONE_TIME_CODE_LIMIT,
    schemas: () => ({
      body: callbackBody(),
      response: authResultSchema(),
    }),
  },
  {
    id: 'auth.refresh',
    method: 'POST',
    path: '/api/auth/refresh-token',
    group: 'auth',
    auth: { kind: 'bearer', allowExpired: true },
    summary: 'Rotate a refresh token; the (possibly expired) access token must be of the same user',
    scope: scope.account,
    status: 200,
    errors: [accountDisabled, ...TENANT_REFUSALS],
    schemas: () => ({
      body: z.object({ accessToken: z.string().check(z.minLength(1), z.maxLength(8192)), refreshToken: opaqueToken() }),
      response: tokenPairSchema(),
    }),
  },
  {
    id: 'auth.forgotPassword',
    method: 'POST',
    path: '/api/auth/forgot-password',
    group: 'auth',
    auth: none,
    summary: 'E-mail a password reset link and token when the account exists; always 200 with null',
    scope: scope.account,
    status: 200,
    rateLimit: MAIL_LIMIT,
    schemas: () => ({
      body: z.object({ email: email() }),
      response: nullResult(),
    }),
  },
  {
    id: 'auth.resetPassword',
    method: 'POST',
    path: '/api/auth/reset-password',
    group: 'auth',
    auth: none,
    summary: 'Set a new password with an e-mailed reset token; revokes every session of the user',
    scope: scope.account,
    status: 200,
    errors: [invalidResetToken],
    rateLimit: ONE_TIME_CODE_LIMIT,
    schemas: () => ({
      body: z.object({ email: email(), resetToken: opaqueToken(), newPassword: newPassword() }),
      response: nullResult(),
    }),
  },
  {
    id: 'auth.verifyEmail',
    method: 'POST',
    path: '/api/auth/verify-email',
    group: 'auth',
    auth: none,
    summary: 'Confirm the e-mail address with the 6-digit code',
    scope: scope.account,
    status: 200,
    errors: [invalidCode, codeExpired, tooManyAttempts],
    rateLimit: ONE_TIME_CODE_LIMIT,
    schemas: () => ({
      body: z.object({ email: email(), code: sixDigitCode() }),
      response: nullResult(),
    }),
  },
  {
    id: 'auth.resendVerification',
    method: 'POST',
    path: '/api/auth/resend-verification',
    group: 'auth',
    auth: none,
    summary: 'Send a new verification code; once per 60 seconds per address (429 otherwise)',
    scope: scope.account,
    status: 200,
    rateLimit: MAIL_LIMIT,
    schemas: () => ({
      body: z.object({ email: email() }),
      response: nullResult(),
    }),
  },
  {
    id: 'auth.changePassword',
    method: 'POST',
    path: '/api/auth/change-password',
    group: 'auth',
    auth: { kind: 'bearer' },
    summary: 'Change the password; revokes every session of the user',
    scope: scope.account,
    status: 200,
    errors: [passwordNotSet, invalidCurrentPassword, passwordUnchanged],
    rateLimit: SIGN_IN_LIMIT,
    schemas: () => ({
      body: z.object({ currentPassword: givenPassword(), newPassword: newPassword() }),
      response: nullResult(),
    }),
  },
  {
    id: 'auth.logout',
    method: 'POST',
    path: '/api/auth/logout',
    group: 'auth',
    auth: { kind: 'bearer' },
    summary: 'Revoke the refresh token and its whole rotation family',
    scope: scope.account,
    status: 204,
    schemas: () => ({
      body: z.object({ refreshToken: opaqueToken() }),
    }),
  },
]);
