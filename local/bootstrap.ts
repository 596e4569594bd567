import { randomBytes } from 'node:crypto';
import { generateSigningKeyParams, signingParams } from '#shared/auth/signing-keys.ts';
import { hashPassword } from '#areas/identity/password.ts';
import { createUser, findUserByEmail } from '#areas/identity/user-accounts.ts';
import { config } from '#shared/platform/config.ts';
import type { ParameterStore } from '#shared/platform/ports.ts';

const secret = () => randomBytes(24).toString('base64url');

/** The JWT key pair, created once and then kept in the local parameter store like in SSM. */
export async function ensureSigningKeys(params: ParameterStore): Promise<boolean> {
  const names = signingParams();
  const [pub, priv] = await Promise.all([
    params.get(names.publicJwks, { decrypt: false }),
    params.get(names.privateJwk),
  ]);
  if (pub && priv) return false;
  const fresh = await generateSigningKeyParams();
  await params.put(names.publicJwks, fresh.publicJwks, { secure: false });
  await params.put(names.privateJwk, fresh.privateJwk, { secure: true });
  return true;
}

/**
 * INTERNAL_API_KEY wins when set. Otherwise the key lives where AWS keeps it, the SecureString
 * `<prefix>/internal-api-key`, which here is a file in LOCAL_DATA_DIR, so it survives restarts.
 */
export async function ensureInternalKey(
  params: ParameterStore,
): Promise<{ key: string; source: 'env' | 'stored' | 'generated' }> {
  if (process.env.INTERNAL_API_KEY) return { key: process.env.INTERNAL_API_KEY, source: 'env' };
  const name = `${config.paramPrefix}/internal-api-key`;
  const stored = await params.get(name);
  if (stored) return { key: stored.value, source: 'stored' };
  const key = secret();
  await params.put(name, key, { secure: true, overwrite: false });
  return { key, source: 'generated' };
}

export type AdminOutcome = { email: string } & (
  | { status: 'exists' }
  | { status: 'created'; generatedPassword?: string }
);

/** Makes sure a SystemAdmin exists; an existing account is never changed. */
export async function ensureAdmin(email = process.env.ADMIN_EMAIL || 'admin@example.com'): Promise<AdminOutcome> {
  if (await findUserByEmail(email)) return { email, status: 'exists' };
  const password = process.env.ADMIN_PASSWORD || secret();
  await createUser(
    {
      id: crypto.randomUUID(),
      email,
      firstName: 'System',
      lastName: 'Administrator',
      phoneNumber: null,
      roles: ['SystemAdmin'],
      tenantId: null,
      isActive: true,
      isEmailVerified: true,
      avatarUrl: null,
      departmentId: null,
      passwordHash: await hashPassword(password),
      createdAt: new Date().toISOString(),
    },
    null,
  );
  return { email, status: 'created', ...(process.env.ADMIN_PASSWORD ? {} : { generatedPassword: password }) };
}
