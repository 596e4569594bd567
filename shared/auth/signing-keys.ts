import type { CryptoKey, JWK } from 'jose';
import { config } from '#shared/platform/config.ts';
import { parameterStore } from '#shared/platform/ports.ts';

export const JWT_ALG = 'ES256';

/**
 * jose, loaded with the keys on the first request that needs a token (public routes never do); it
 * stays beside the bundle (lib/bundling.ts), so no cold start parses it. Loaded by name here only.
 */
export const loadJose = () => import('jose');

/**
 * Access tokens are ES256. The public JWK set sits in a plain SSM parameter every function may
 * read; the private JWK in a SecureString only the auth function may read. Both are fetched once
 * per cold start, so verifying a token makes no network call.
 */
export const signingParams = () => ({
  publicJwks: `${config.paramPrefix}/auth/jwt-public-jwks`,
  privateJwk: `${config.paramPrefix}/auth/jwt-private-jwk`,
});

export interface VerificationKeys {
  byKid: Map<string, CryptoKey>;
  jwks: { keys: JWK[] };
}

let verification: Promise<VerificationKeys> | undefined;
let signing: Promise<{ kid: string; key: CryptoKey }> | undefined;

export function verificationKeys(): Promise<VerificationKeys> {
  verification ??= (async () => {
    const stored = await (await parameterStore()).get(signingParams().publicJwks, { decrypt: false });
    if (!stored) throw new Error('JWT public keys are not configured');
    const jwks = JSON.parse(stored.value) as { keys: JWK[] };
    const { importJWK } = await loadJose();
    const byKid = new Map<string, CryptoKey>();
    for (const jwk of jwks.keys) byKid.set(jwk.kid!, (await importJWK(jwk, JWT_ALG)) as CryptoKey);
    return { byKid, jwks };
  })().catch((err) => {
    verification = undefined;
    throw err;
  });
  return verification;
}

export function signingKey(): Promise<{ kid: string; key: CryptoKey }> {
  signing ??= (async () => {
    const stored = await (await parameterStore()).get(signingParams().privateJwk, { decrypt: true });
    if (!stored) throw new Error('JWT signing key is not configured');
    const jwk = JSON.parse(stored.value) as JWK;
    const { importJWK } = await loadJose();
    return { kid: jwk.kid!, key: (await importJWK(jwk, JWT_ALG)) as CryptoKey };
  })().catch((err) => {
    signing = undefined;
    throw err;
  });
  return signing;
}

/** Forget cached keys (tests, key rotation in the local server). */
export function resetKeyCache() {
  verification = undefined;
  signing = undefined;
}

/** A fresh key pair as the two parameter values; used by the local server, tests and the deploy script. */
export async function generateSigningKeyParams(kid = crypto.randomUUID()) {
  const { exportJWK, generateKeyPair } = await loadJose();
  const { publicKey, privateKey } = await generateKeyPair(JWT_ALG, { extractable: true });
  const pub = { ...(await exportJWK(publicKey)), kid, alg: JWT_ALG, use: 'sig' };
  const priv = { ...(await exportJWK(privateKey)), kid, alg: JWT_ALG, use: 'sig' };
  return { publicJwks: JSON.stringify({ keys: [pub] }), privateJwk: JSON.stringify(priv) };
}
