import { ENVIRONMENT_PATTERN, isValidKey } from './rules.ts';

const VAULT_REFERENCE = /^vault:\/\/([^/]+)\/([^/]+)$/;

/**
 * A credential is stored in a record only as a vault reference `vault://{environment}/{key}`,
 * naming a secret the vault can hold; the secret itself never enters the record.
 */
export function isVaultReference(value: string): boolean {
  const m = VAULT_REFERENCE.exec(value);
  return !!m && ENVIRONMENT_PATTERN.test(m[1]!) && isValidKey(m[2]!);
}
