import { createHash } from 'node:crypto';
import { get } from '#shared/data/read.ts';
import { gatewayKeys } from './records.ts';

/**
 * Finds the key a secret names with one GetItem on its hash-keyed item. Kept apart from the key
 * routes' module so the authentication middleware loads only this.
 */
export const KEY_PREFIX = 'gk_';

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

export async function keyOfSecret(secret: string): Promise<{ tenantId: string; keyId: string } | null> {
  if (!secret.startsWith(KEY_PREFIX) || secret.length > 200) return null;
  const owner = await get<{ tenantId?: string; keyId?: string }>(gatewayKeys.keyHash(hashSecret(secret)));
  return owner?.tenantId && owner.keyId ? { tenantId: owner.tenantId, keyId: owner.keyId } : null;
}
