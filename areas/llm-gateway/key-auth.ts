import { createHash } from 'node:crypto';
import { get } from '#shared/data/read.ts';
import type { CredentialResolvers, GatewayKeyRef } from '#shared/runtime/credentials.ts';
import { gatewayKeys } from './records.ts';

/**
 * Finds the key a secret names with one GetItem on its hash-keyed item. Kept apart from the key
 * routes' module so the authentication middleware loads only this. Which key a secret names never
 * changes (a revocation marks the key, which the gateway reads fresh on every call), so an instance
 * remembers the answer and a warm call makes no round trip here; unknown secrets are not remembered.
 */
export const KEY_PREFIX = 'gk_';

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

const known = new Map<string, GatewayKeyRef>();
const KNOWN_MAX = 1000;

async function keyOfSecret(secret: string): Promise<GatewayKeyRef | null> {
  if (!secret.startsWith(KEY_PREFIX) || secret.length > 200) return null;
  const hash = hashSecret(secret);
  const remembered = known.get(hash);
  if (remembered) return remembered;
  const owner = await get<{ tenantId?: string; keyId?: string }>(gatewayKeys.keyHash(hash));
  if (!owner?.tenantId || !owner.keyId) return null;
  if (known.size >= KNOWN_MAX) known.clear();
  const found = { tenantId: owner.tenantId, keyId: owner.keyId };
  known.set(hash, found);
  return found;
}

const BEARER_KEY = /^Bearer (gk_\S+)$/;

/** The gateway key credential the runtime resolves on `gatewayKey` routes (the llm-gateway function gives it). */
export const gatewayKeyCredential: CredentialResolvers['gatewayKey'] = {
  secretOf: (authorization) => BEARER_KEY.exec(authorization ?? '')?.[1],
  find: keyOfSecret,
};
