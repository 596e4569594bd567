import * as z from 'zod/mini';
import { environmentPattern, KEY_PATTERN, RESERVED_ENVIRONMENTS } from '#areas/vault/rules.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';

// The vault's own patterns, documented as they are checked (regex, not refine); messages never repeat the input.
const environment = () =>
  z
    .string()
    .check(
      z.regex(
        environmentPattern(),
        `Must be 1-32 characters of a-z, 0-9 and -, not ${RESERVED_ENVIRONMENTS.join(' or ')}`,
      ),
    );
const key = () =>
  z.string().check(z.regex(KEY_PATTERN, 'Must be 1-128 characters of A-Z, a-z, 0-9, _, . and - (not . or ..)'));

const environmentParams = once(() => z.object({ environment: environment() }));
const secretParams = once(() => z.object({ environment: environment(), key: key() }));

const secretSchema = once(() =>
  z.object({ environment: z.string(), key: z.string(), value: z.string(), version: z.number() }),
);
const secretWriteSchema = once(() =>
  z.object({ environment: z.string(), key: z.string(), version: z.number(), updatedAt: z.string() }),
);
const secretListSchema = once(() =>
  z.object({
    environment: z.string(),
    items: z.array(
      z.object({
        key: z.string(),
        value: z.literal('***'),
        version: z.number(),
        updatedAt: z.nullable(z.string()),
        deleted: z.boolean(),
      }),
    ),
    totalCount: z.number(),
  }),
);
const syncAcceptedSchema = once(() => z.object({ jobId: z.string(), status: z.literal('queued') }));

const keyOnly = { kind: 'internalKey' } as const;
const keyAndAdmin = { kind: 'internalKey', roles: ['SystemAdmin'] } as const;

export const vaultRoutes = defineRoutes([
  {
    id: 'vault.get',
    method: 'GET',
    path: '/api/secrets/{environment}/{key}',
    group: 'vault',
    auth: keyOnly,
    scope: scope.platform,
    summary: 'Read one secret in plain text; a deleted or unknown key is 404',
    status: 200,
    schemas: () => ({
      params: secretParams(),
      response: secretSchema(),
    }),
  },
  {
    id: 'vault.list',
    method: 'GET',
    path: '/api/secrets/{environment}',
    group: 'vault',
    auth: keyOnly,
    scope: scope.platform,
    summary: 'Every key of an environment, ordered by key, values masked as *** (deleted keys flagged)',
    status: 200,
    schemas: () => ({
      params: environmentParams(),
      response: secretListSchema(),
    }),
  },
  {
    id: 'vault.put',
    method: 'PUT',
    path: '/api/secrets/{environment}/{key}',
    group: 'vault',
    auth: keyOnly,
    scope: scope.platform,
    summary: 'Create or overwrite a secret (SecureString, new version); value 1 to 4096 UTF-8 bytes, larger is 413',
    status: 200,
    // The value's own 4096-byte limit is checked by the handler (413); JSON escapes can make
    // the body several times longer than the value.
    maxBodyBytes: 32 * 1024,
    schemas: () => ({
      params: secretParams(),
      body: z.object({ value: z.string().check(z.minLength(1, 'Must not be empty')) }),
      response: secretWriteSchema(),
    }),
  },
  {
    id: 'vault.delete',
    method: 'DELETE',
    path: '/api/secrets/{environment}/{key}',
    group: 'vault',
    auth: keyAndAdmin,
    scope: scope.platform,
    summary: 'Delete a secret: its value becomes the marker __deleted__ (history kept); 404 when not live',
    status: 204,
    schemas: () => ({
      params: secretParams(),
    }),
  },
  {
    id: 'vault.sync',
    method: 'POST',
    path: '/api/secrets/sync/{environment}',
    group: 'vault',
    auth: keyAndAdmin,
    scope: scope.platform,
    summary: 'Queue an import of the environment sources under vault-sources/{environment}; 202 with the job id',
    status: 202,
    schemas: () => ({
      params: environmentParams(),
      response: syncAcceptedSchema(),
    }),
  },
]);
