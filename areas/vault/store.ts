import { serviceUnavailable } from '#shared/http/errors.ts';
import { parameterStore, type ParameterStore } from '#shared/platform/ports.ts';
import { ttlCache } from './cache.ts';
import { childName, DELETED_MARKER, environmentPath, MASK, secretName } from './rules.ts';

/** Reads are cached per function instance for this long; writes through this instance invalidate. */
const READ_CACHE_TTL_MS = 30_000;

export interface SecretValue {
  value: string;
  version: number;
}

export interface SecretListItem {
  key: string;
  value: typeof MASK;
  version: number;
  updatedAt: string | null;
  deleted: boolean;
}

// The marker is cached like any value so a deleted key is not re-read on every request.
const values = ttlCache<SecretValue>(READ_CACHE_TTL_MS);
// Lists are cached already masked: no plain value outlives the request that listed it.
const lists = ttlCache<SecretListItem[]>(READ_CACHE_TTL_MS);

export function resetVaultCache() {
  values.clear();
  lists.clear();
}

function invalidate(environment: string, key: string) {
  values.delete(secretName(environment, key));
  lists.delete(environment);
}

/**
 * Runs an SSM call and strips its error down to the name: AWS validation messages can quote the
 * request (a secret value among it), and error names are all the API maps (throttling to 503).
 */
export async function ssm<T>(call: (store: ParameterStore) => Promise<T>): Promise<T> {
  const store = await parameterStore();
  try {
    return await call(store);
  } catch (err) {
    const name = (err as { name?: string } | null)?.name ?? 'Error';
    // Concurrent writes to one parameter: a transient conflict, not a server fault.
    if (name === 'TooManyUpdates') throw serviceUnavailable(1);
    throw Object.assign(new Error(`Parameter store call failed (${name})`), { name });
  }
}

/** The live value, or null when the key was never written or is deleted. */
export async function readSecret(environment: string, key: string): Promise<SecretValue | null> {
  const name = secretName(environment, key);
  let found = values.get(name);
  if (!found) {
    const stored = await ssm((s) => s.get(name, { decrypt: true }));
    if (!stored) return null;
    found = { value: stored.value, version: stored.version };
    values.set(name, found);
  }
  return found.value === DELETED_MARKER ? null : found;
}

/** Every key of the environment (all pages), values masked, ordered by key. */
export async function listSecrets(environment: string): Promise<SecretListItem[]> {
  const cached = lists.get(environment);
  if (cached) return cached;
  const path = environmentPath(environment);
  // Decryption is needed only to recognise the delete marker; values never leave this function.
  const params = await ssm((s) => s.listByPath(path, { decrypt: true }));
  const items = params
    .flatMap((p): SecretListItem[] => {
      const key = childName(path, p.name);
      if (!key) return [];
      return [
        {
          key,
          value: MASK,
          version: p.version,
          updatedAt: p.lastModified ?? null,
          deleted: p.value === DELETED_MARKER,
        },
      ];
    })
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  lists.set(environment, items);
  return items;
}

/** Creates or overwrites (SSM keeps the previous versions). */
export async function writeSecret(
  environment: string,
  key: string,
  value: string,
): Promise<{ version: number; updatedAt: string }> {
  const name = secretName(environment, key);
  const { version } = await ssm((s) => s.put(name, value, { secure: true, overwrite: true }));
  invalidate(environment, key);
  return { version, updatedAt: new Date().toISOString() };
}

/** Replaces the value with the delete marker; null when there is no live value to delete. */
export async function deleteSecret(environment: string, key: string): Promise<{ version: number } | null> {
  const name = secretName(environment, key);
  // Decide on the stored state, not on a cached one.
  const current = await ssm((s) => s.get(name, { decrypt: true }));
  if (!current || current.value === DELETED_MARKER) {
    invalidate(environment, key);
    return null;
  }
  const { version } = await ssm((s) => s.put(name, DELETED_MARKER, { secure: true, overwrite: true }));
  invalidate(environment, key);
  return { version };
}

/** Raw listing for the sync job (plain values; never cached, never returned by the API). */
export const listParameters = (path: string) => ssm((s) => s.listByPath(path, { decrypt: true }));
