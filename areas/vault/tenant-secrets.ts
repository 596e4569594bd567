import { payloadTooLarge, validationError } from '#shared/http/errors.ts';
import { secretOutsideNamespace } from './errors.ts';
import { config } from '#shared/platform/config.ts';
import { MAX_VALUE_BYTES, valueProblem } from './rules.ts';
import { ssm } from './store.ts';

/**
 * Tenant secrets (a tool's connection string; channel credentials later). A tenant cannot call the
 * vault routes (they take the internal key), so it gives a secret's value, write-only, to the
 * route that needs it; the value is kept in the vault's store (SSM SecureString, the vault's KMS
 * key) in a namespace of that tenant, `/<app>/<stage>/tenants/{tenantId}/{name}`, and the record
 * keeps only a reference `vault://tenants/{tenantId}/{name}`. Reads show whether a secret is set,
 * never its value. A reference outside the caller's namespace is refused when it is written and
 * again when it is resolved. The vault routes cannot reach this namespace (their environments
 * live under `/vault/`, and `tenants` is a reserved environment name).
 */
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A secret's name in its tenant's namespace: 1-5 segments of a-z, 0-9 and - (`tools/{toolId}/connection-ab12`). */
const NAME = /^[a-z0-9-]{1,64}(?:\/[a-z0-9-]{1,64}){0,4}$/;
const REFERENCE = /^vault:\/\/tenants\/([^/]+)\/(.+)$/;

export interface TenantSecretRef {
  tenantId: string;
  name: string;
}

const parameterName = ({ tenantId, name }: TenantSecretRef) => `${config.paramPrefix}/tenants/${tenantId}/${name}`;

export const tenantSecretReference = ({ tenantId, name }: TenantSecretRef) => `vault://tenants/${tenantId}/${name}`;

/** The tenant and name a reference names, or null when it is not a tenant secret reference at all. */
export function parseTenantSecretReference(reference: string): TenantSecretRef | null {
  const m = REFERENCE.exec(reference);
  if (!m || !TENANT_ID.test(m[1]!) || !NAME.test(m[2]!)) return null;
  return { tenantId: m[1]!, name: m[2]! };
}

/** The reference's secret, when the reference is one and lies in `tenantId`'s namespace; else null. */
export function ownReference(tenantId: string, reference: string | null | undefined): TenantSecretRef | null {
  const ref = reference ? parseTenantSecretReference(reference) : null;
  return ref && ref.tenantId === tenantId ? ref : null;
}

/** Thrown by resolve/delete for a reference outside the caller's namespace (403). */
const outsideNamespace = secretOutsideNamespace;

function owned(tenantId: string, reference: string): TenantSecretRef {
  const ref = ownReference(tenantId, reference);
  if (!ref) throw outsideNamespace();
  return ref;
}

/** Problems of a value given for a tenant secret, as the route's 400/413 (never quoting the value). */
function checkTenantSecretValue(value: string, path: string) {
  const problem = valueProblem(value);
  if (problem === 'too-large')
    throw payloadTooLarge(MAX_VALUE_BYTES, `A secret value may have at most ${MAX_VALUE_BYTES} bytes`);
  if (problem === 'reserved') throw validationError([{ path, message: 'This value is reserved' }]);
  if (problem === 'empty') throw validationError([{ path, message: 'Must not be empty' }]);
}

/** Stores (or replaces: SSM keeps the version) the tenant's secret `name`; answers its reference. */
export async function putTenantSecret(
  tenantId: string,
  name: string,
  value: string,
  path = 'body',
): Promise<{ reference: string; version: number }> {
  if (!TENANT_ID.test(tenantId) || !NAME.test(name)) throw new Error('Not a tenant secret name');
  checkTenantSecretValue(value, path);
  const ref = { tenantId, name };
  const { version } = await ssm((s) => s.put(parameterName(ref), value, { secure: true, overwrite: true }));
  return { reference: tenantSecretReference(ref), version };
}

/**
 * The value a reference names, for the code that uses the secret (a tool's executor): checked
 * against the caller's namespace again (403 outside it), null when the secret is not set.
 */
export async function resolveTenantSecret(tenantId: string, reference: string): Promise<string | null> {
  const ref = owned(tenantId, reference);
  const stored = await ssm((s) => s.get(parameterName(ref), { decrypt: true }));
  return stored?.value ?? null;
}

/**
 * What a read shows of a secret a record references: whether it is set (a reference of the
 * tenant's own namespace), never the value. No store call: the record's reference is the answer.
 */
export const describeTenantSecret = (tenantId: string, reference: string | null | undefined) => ({
  set: ownReference(tenantId, reference) !== null,
});

/** Whether the referenced secret exists (a reference a client sends instead of a value); 403 outside the namespace. */
export async function tenantSecretExists(tenantId: string, reference: string): Promise<boolean> {
  const ref = owned(tenantId, reference);
  return (await ssm((s) => s.get(parameterName(ref), { decrypt: false }))) !== null;
}

/** Deletes the secret (and its history); false when it was not set. 403 outside the namespace. */
export async function deleteTenantSecret(tenantId: string, reference: string): Promise<boolean> {
  const ref = owned(tenantId, reference);
  return ssm((s) => s.delete(parameterName(ref)));
}
