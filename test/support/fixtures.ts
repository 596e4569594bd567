import { vi } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/data/keys.ts';
import { commitChange } from '#shared/data/commit.ts';
import { systemRoleItems } from '#areas/identity/system-roles.ts';
import type { UserRecord } from '#areas/identity/user-accounts.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { tokenFor } from './tokens.ts';

/** An active tenant item with its system roles, written directly (integration tier). */
export async function newTenant(extra: Record<string, unknown> = {}): Promise<string> {
  const id = crypto.randomUUID();
  await ddb().send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...keys.platformItem('TENANT', id), id, status: 1, ...extra },
    }),
  );
  await commitChange(systemRoleItems(id, new Date().toISOString()), null);
  return id;
}

/** Two tenants and the callers most tests need: A's owner and member, B's owner, a SystemAdmin. */
export async function twoTenants() {
  const [tenantA, tenantB] = [await newTenant(), await newTenant()];
  return {
    tenantA,
    tenantB,
    ownerA: await tokenFor({ tenantId: tenantA }),
    memberA: await tokenFor({ tenantId: tenantA, role: 'TenantMember' }),
    ownerB: await tokenFor({ tenantId: tenantB }),
    admin: await tokenFor({ role: 'SystemAdmin' }),
  };
}

/** A complete user record for `createUser`: an active, unverified, password-less account unless overridden. */
export const userRecord = (overrides: Partial<UserRecord> & Pick<UserRecord, 'email'>): UserRecord => ({
  id: crypto.randomUUID(),
  firstName: 'Test',
  lastName: 'User',
  phoneNumber: null,
  roles: [],
  tenantId: null,
  isActive: true,
  isEmailVerified: false,
  avatarUrl: null,
  departmentId: null,
  passwordHash: null,
  createdAt: new Date().toISOString(),
  ...overrides,
});

/**
 * Runs `burst` with the wall clock stopped (timers still run), so a test that makes N requests and
 * expects the (N+1)th refused never straddles two fixed rate-limit windows, however slow the machine.
 */
export async function inOneRateWindow<T>(burst: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  try {
    return await burst();
  } finally {
    vi.useRealTimers();
  }
}
