import { config } from '#shared/platform/config.ts';

/**
 * Names and limits of the vault; the route schemas (and so the API document) and the sync job use
 * these patterns as they are, so what is documented is what the server accepts.
 *
 * Reserved environment names: `sync` (the literal sibling route `POST /api/secrets/sync/{environment}`,
 * which a secret route would otherwise shadow) and `tenants` (tenant secrets' namespace, tenant-secrets.ts).
 */
export const RESERVED_ENVIRONMENTS = ['sync', 'tenants'] as const;
export const ENVIRONMENT_PATTERN = new RegExp(`^(?!(?:${RESERVED_ENVIRONMENTS.join('|')})$)[a-z0-9-]{1,32}$`);
/** `.` and `..` match the character class but cannot be addressed in a URL path (clients resolve them). */
export const KEY_PATTERN = /^(?!\.{1,2}$)[A-Za-z0-9_.-]{1,128}$/;
/** SSM standard tier: 4 KB per value, counted in UTF-8 bytes. */
export const MAX_VALUE_BYTES = 4096;
/** A deleted secret keeps its parameter (and SSM's version history) with this value. */
export const DELETED_MARKER = '__deleted__';
export const MASK = '***';

export const valueBytes = (value: string) => Buffer.byteLength(value, 'utf8');

export const isValidKey = (key: string) => KEY_PATTERN.test(key);

export type ValueProblem = 'empty' | 'too-large' | 'reserved';

export function valueProblem(value: string): ValueProblem | null {
  if (value.length === 0) return 'empty';
  if (valueBytes(value) > MAX_VALUE_BYTES) return 'too-large';
  if (value === DELETED_MARKER) return 'reserved';
  return null;
}

/** `/<app>/<stage>/vault/{environment}`: the environment's secrets. */
export const environmentPath = (environment: string) => `${config.paramPrefix}/vault/${environment}`;
export const secretName = (environment: string, key: string) => `${environmentPath(environment)}/${key}`;
/** `/<app>/<stage>/vault-sources/{environment}`: what the deployment provides for sync to import. */
export const sourcePath = (environment: string) => `${config.paramPrefix}/vault-sources/${environment}`;

/** The last path segment below `path`, or null when the name is deeper or elsewhere. */
export function childName(path: string, name: string): string | null {
  const prefix = `${path}/`;
  if (!name.startsWith(prefix)) return null;
  const rest = name.slice(prefix.length);
  return rest.includes('/') ? null : rest;
}
