import { checkItem, commitChange, orConflict, putNew, updateItem } from '#shared/data/commit.ts';
import { get, getOr404 } from '#shared/data/read.ts';
import { ApiError, conflict } from '#shared/http/errors.ts';
import {
  accountExists,
  duplicateEmail,
  externalSignInNotConfigured,
  invalidRedirectUri,
  providerEmailMissing,
} from '#areas/identity/errors.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import {
  isAllowedRedirect,
  providerConfig,
  redirectAllowList,
  type ProviderId,
} from '#areas/identity/identity-providers.ts';
import { countIntegrationEvents, integrationEventPut } from '#shared/data/integration-events.ts';
import {
  assertNonce,
  consumeFlow,
  emailVerifiedClaim,
  exchangeCode,
  flowForState,
  startFlow,
  verifyIdToken,
  type IdTokenClaims,
} from '#areas/identity/oidc-client.ts';
import { identityKeys, normalizeEmail, type IdentityLink, type UserRecord } from '#areas/identity/records.ts';
import { revokeAllFamilies } from '#areas/identity/refresh-tokens.ts';
import { createUser, findUserByEmail, getUser } from '#areas/identity/user-accounts.ts';
import { authChange, recordAuth } from './audit.ts';
import { completeSignIn, type Account } from './session.ts';

function assertRedirect(redirectUri: string) {
  if (isAllowedRedirect(redirectUri)) return;
  if (!redirectAllowList().length) throw externalSignInNotConfigured();
  throw invalidRedirectUri();
}

export async function startExternal(provider: ProviderId, input: { redirectUri: string }) {
  assertRedirect(input.redirectUri);
  return startFlow(providerConfig(provider), input.redirectUri);
}

/**
 * The callback: the flow is found by `state`, must have been started by this client (its
 * `clientBinding`), and is consumed before the code exchange (its PKCE verifier goes with it); the
 * ID token's nonce must match. A flow is used once, within 10 minutes, for the provider and
 * redirect URI it was started with.
 */
export async function finishExternal(
  provider: ProviderId,
  input: { code: string; redirectUri: string; state: string; clientBinding: string },
  ip: string,
) {
  const cfg = providerConfig(provider);
  let claims: IdTokenClaims;
  let user: Account;
  try {
    assertRedirect(input.redirectUri);
    const flow = await flowForState(provider, input);
    await consumeFlow(flow);
    claims = await verifyIdToken(cfg, await exchangeCode(cfg, input.code, input.redirectUri, flow.codeVerifier));
    assertNonce(flow, claims);
    user = await findOrCreateExternalUser(provider, claims);
  } catch (err) {
    if (err instanceof ApiError) {
      await recordAuth({
        action: 'login.failed',
        user: null,
        email: '',
        details: { method: provider, ip, reason: err.code },
      });
      countMetric('SignInRefused', err.code);
    }
    throw err;
  }
  return completeSignIn(user, { method: provider, ip, rememberMe: false });
}

const clip = (value: unknown, max: number) => (typeof value === 'string' ? value.trim().slice(0, max) : '');
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

async function linkedUser(provider: ProviderId, subject: string): Promise<Account | undefined> {
  const link = await get<IdentityLink>(identityKeys.identityLink(provider, subject));
  return link ? await getUser(link.tenantId ?? null, link.userId) : undefined;
}

/**
 * The user for a provider subject: the linked one; else the account with the provider's e-mail,
 * linked only when the provider says that e-mail is verified and the account is not a SystemAdmin
 * (409 ACCOUNT_EXISTS otherwise); else a
 * new account (no tenant, no roles, no password). Linking to an account whose own address was never
 * verified marks it verified, removes its password and revokes its sessions: whoever registered the
 * address without proving it (account pre-hijacking) loses access.
 */
async function findOrCreateExternalUser(provider: ProviderId, claims: IdTokenClaims): Promise<Account> {
  const linked = await linkedUser(provider, claims.sub);
  if (linked) return linked;
  const email = normalizeEmail(clip(claims.email, 254));
  if (!EMAIL.test(email)) throw providerEmailMissing();
  const verified = emailVerifiedClaim(claims);
  // A concurrent first sign-in of the same subject linked it first: its user is the answer.
  const raced = conflict('The account is being set up by another request; try again');
  const link = (user: { id: string; tenantId: string | null }) =>
    orConflict(
      putNew({
        ...identityKeys.identityLink(provider, claims.sub),
        ...({
          userId: user.id,
          tenantId: user.tenantId,
          provider,
          subject: claims.sub,
          linkedAt: new Date().toISOString(),
        } satisfies IdentityLink),
      }),
      raced,
    );

  const existing: Account | undefined = await findUserByEmail(email);
  if (existing) {
    // A platform administrator is never reached through someone else's identity provider.
    if (!verified || existing.roles.includes('SystemAdmin')) throw accountExists();
    const takeOver = !existing.isEmailVerified;
    const userKey = identityKeys.user(existing.tenantId, existing.id);
    try {
      await commitChange(
        [
          link(existing),
          orConflict(
            takeOver
              ? updateItem(
                  userKey,
                  { isEmailVerified: true },
                  { add: { sessionVersion: 1 }, remove: ['passwordHash'], condition: 'attribute_exists(pk)' },
                )
              : checkItem(userKey, 'attribute_exists(pk)'),
            raced,
          ),
        ],
        authChange({ action: 'identity.linked', user: existing, details: { provider, emailWasVerified: !takeOver } }),
      );
    } catch (err) {
      if (err === raced) return raceWinner(provider, claims.sub);
      throw err;
    }
    if (takeOver) await revokeAllFamilies(existing.id, 'identity-link');
    return await getOr404<Account>(userKey, 'User', { consistent: true });
  }

  const now = new Date().toISOString();
  const user: UserRecord = {
    id: crypto.randomUUID(),
    email,
    firstName: clip(claims.given_name, 100),
    lastName: clip(claims.family_name, 100),
    phoneNumber: null,
    roles: [],
    tenantId: null,
    isActive: true,
    isEmailVerified: verified,
    avatarUrl: clip(claims.picture, 2048) || null,
    departmentId: null,
    passwordHash: null,
    createdAt: now,
  };
  try {
    await createUser(user, null, [
      link(user),
      integrationEventPut('user.registered', { userId: user.id, email, tenantId: null, source: provider }, now),
    ]);
  } catch (err) {
    // A concurrent first sign-in of the same subject linked it, or claimed the e-mail, first.
    if (err === raced || duplicateEmail.is(err)) return raceWinner(provider, claims.sub);
    throw err;
  }
  await countIntegrationEvents(1);
  countMetric('Registration', provider);
  return user;
}

async function raceWinner(provider: ProviderId, subject: string): Promise<Account> {
  const user = await linkedUser(provider, subject);
  if (!user) throw conflict('The account is being set up by another request; try again');
  return user;
}
