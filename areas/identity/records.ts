import { SYSTEM_ROLE_PERMISSIONS, isPermission } from '#shared/auth/permissions.ts';
import { keys, type Key, type Item } from '#shared/data/keys.ts';
import { planFeatures } from './plans.ts';
import {
  TENANT_STATUS_CODES,
  TENANT_SYSTEM_ROLES,
  type PlanTypeValue,
  type TenantStatusValue,
  type TenantSystemRole,
} from './vocabulary.ts';

/**
 * The identity area's records: key shapes (built on the primitives of shared/data/keys.ts), the
 * stored types, and the mappers between stored items and API answers. Users, tenants and the
 * unique-value claims are shapes other areas read too, so their primitives stay in keys.ts.
 */

const ITEM_SK = 'ITEM';

/** Short-lived one-time secrets and markers: e-mail codes, reset tokens, OAuth state, cooldowns, device tokens. */
export type OneTimeKind = 'VERIFY' | 'RESET' | 'OAUTH_STATE' | 'RESEND' | 'DEVICE';

export const identityKeys = {
  user: keys.user,
  users: keys.userCollection,
  /** The claim on an e-mail address (platform-wide): which user holds it. */
  email: (normalizedEmail: string) => keys.unique('EMAIL', normalizedEmail),
  tenant: (tenantId: string) => keys.platformItem('TENANT', tenantId),
  tenants: () => keys.platformCollection('TENANT'),
  slug: (slug: string) => keys.unique('SLUG', slug),
  role: (tenantId: string, roleId: string) => keys.tenantItem(tenantId, 'ROLE', roleId),
  roles: (tenantId: string) => keys.tenantCollection(tenantId, 'ROLE'),
  /** A role name is unique within its tenant, case-insensitively. */
  roleName: (tenantId: string, name: string) => keys.unique('ROLE_NAME', name.toLowerCase(), tenantId),
  group: (tenantId: string, groupId: string) => keys.tenantItem(tenantId, 'GROUP', groupId),
  groups: (tenantId: string) => keys.tenantCollection(tenantId, 'GROUP'),
  groupName: (tenantId: string, name: string) => keys.unique('GROUP_NAME', name.toLowerCase(), tenantId),
  /** A user's membership of a group (memberCount counts these); gsi2 (`userGroups`) lists a user's groups. */
  groupMember: (tenantId: string, groupId: string, userId: string): Key =>
    keys.childItem(tenantId, 'GROUP', groupId, 'MEMBER', userId),
  userGroups: (tenantId: string, userId: string) => `${tenantId}#USER#${userId}#GROUPS`,
  department: (tenantId: string, departmentId: string) => keys.tenantItem(tenantId, 'DEPARTMENT', departmentId),
  departments: (tenantId: string) => keys.tenantCollection(tenantId, 'DEPARTMENT'),
  /** gsi2 partition of a department's direct children (`ROOT` for top-level departments). */
  departmentChildren: (tenantId: string, parentId: string | null) =>
    `${tenantId}#DEPARTMENT#PARENT#${parentId ?? 'ROOT'}`,
  invitation: (tenantId: string, invitationId: string) => keys.tenantItem(tenantId, 'INVITATION', invitationId),
  invitations: (tenantId: string) => keys.tenantCollection(tenantId, 'INVITATION'),
  /** Invitation lookup by the SHA-256 of its code (the code itself is never stored). */
  invitationCode: (codeHash: string) => keys.unique('INVITATION_CODE', codeHash),
  /** Refresh tokens are addressed by the hash of their value; families group rotations. */
  refreshToken: (tokenHash: string): Key => ({ pk: `RT#${tokenHash}`, sk: ITEM_SK }),
  tokenFamily: (familyId: string): Key => ({ pk: `RTF#${familyId}`, sk: ITEM_SK }),
  /** gsi2 partition of a user's refresh-token families. */
  userTokenFamilies: (userId: string) => `USER#${userId}#RTF`,
  oneTime: (kind: OneTimeKind, subject: string): Key => ({ pk: `OTP#${kind}#${subject}`, sk: ITEM_SK }),
  /** External identity link: provider subject -> user. */
  identityLink: (provider: string, subject: string): Key => ({ pk: `IDP#${provider}#${subject}`, sk: ITEM_SK }),
};

const str = (v: unknown) => (typeof v === 'string' ? v : null);
const count = (v: unknown) => Math.max(0, Number(v ?? 0) || 0);

// ---------------------------------------------------------------- users

export interface UserRecord {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  phoneNumber: string | null;
  roles: string[];
  tenantId: string | null;
  isActive: boolean;
  isEmailVerified: boolean;
  avatarUrl: string | null;
  departmentId: string | null;
  passwordHash: string | null;
  createdAt: string;
}

/**
 * A stored user: the record plus bookkeeping. `sessionVersion` is bumped when every session of the
 * user ends (password change, reset, deactivation); `revision` guards read-decide-write changes.
 */
export type UserItem = UserRecord & { sessionVersion?: number; revision?: number };

/** Who holds an e-mail address (the value of its claim). */
export interface EmailOwner {
  userId: string;
  tenantId: string | null;
}

/** E-mail addresses are compared trimmed and lower-cased everywhere. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export const userSearchText = (u: Pick<UserRecord, 'firstName' | 'lastName' | 'email'>) =>
  `${u.firstName} ${u.lastName} ${u.email}`.toLowerCase();

/** The stored item of a new user: key, newest-first ordering in its collection, search text. */
export function userItem(user: UserRecord) {
  const email = normalizeEmail(user.email);
  const collection = identityKeys.users(user.tenantId);
  return {
    ...identityKeys.user(user.tenantId, user.id),
    ...keys.newestFirst(collection, user.createdAt, user.id),
    ...user,
    email,
    searchText: userSearchText({ ...user, email }),
  };
}

/** A tenant user as the users routes answer it. */
export const toUser = (item: Item | UserItem) => ({
  id: item.id as string,
  email: item.email as string,
  firstName: str(item.firstName) ?? '',
  lastName: str(item.lastName) ?? '',
  phoneNumber: str(item.phoneNumber),
  roles: Array.isArray(item.roles) ? (item.roles as string[]) : [],
  tenantId: item.tenantId as string,
  isActive: item.isActive !== false,
  isEmailVerified: item.isEmailVerified === true,
  avatarUrl: str(item.avatarUrl),
  departmentId: str(item.departmentId),
  createdAt: item.createdAt as string,
});

export type UserView = ReturnType<typeof toUser>;

export interface UserGroupRef {
  id: string;
  name: string;
}

/** User detail: the list item plus its department's name and its groups. */
export const toUserDetail = (user: UserView, departmentName: string | null, groups: UserGroupRef[]) => ({
  ...user,
  departmentName,
  groups,
});

/** The signed-in user in an authentication result. */
export const toAuthenticatedUser = (user: UserRecord, permissions: string[]) => ({
  id: user.id,
  email: user.email,
  firstName: user.firstName,
  lastName: user.lastName,
  roles: user.roles,
  tenantId: user.tenantId,
  permissions,
  avatarUrl: user.avatarUrl,
});

// ---------------------------------------------------------------- roles

export interface RoleRecord {
  id: string;
  name: string;
  description: string | null;
  isSystem: boolean;
  tenantId: string;
  scope: string | null;
  permissions: string[];
  userCount: number;
  createdAt: string;
}

const isTenantSystemRole = (name: string): name is TenantSystemRole =>
  (TENANT_SYSTEM_ROLES as readonly string[]).includes(name);

export function toRole(item: Item): RoleRecord {
  const isSystem = item.isSystem === true;
  const name = item.name as string;
  const stored = Array.isArray(item.permissions) ? (item.permissions as string[]) : [];
  return {
    id: item.id as string,
    name,
    description: str(item.description),
    isSystem,
    tenantId: item.tenantId as string,
    scope: str(item.scope),
    // System roles' grants come from the code, so a catalog change applies to every tenant at once.
    permissions:
      isSystem && isTenantSystemRole(name) ? [...SYSTEM_ROLE_PERMISSIONS[name]] : stored.filter(isPermission),
    userCount: count(item.userCount),
    createdAt: item.createdAt as string,
  };
}

/** The stored item of a role: the record plus its ordering and search attributes. */
export function roleItem(role: RoleRecord) {
  return {
    ...identityKeys.role(role.tenantId, role.id),
    ...keys.newestFirst(identityKeys.roles(role.tenantId), role.createdAt, role.id),
    ...role,
    permissions: role.isSystem ? [] : role.permissions,
    searchText: role.name.toLowerCase(),
  };
}

// ---------------------------------------------------------------- groups

export interface GroupRecord {
  id: string;
  name: string;
  tenantId: string;
  description: string | null;
  memberCount: number;
  createdAt: string;
}

export const toGroup = (item: Item): GroupRecord => ({
  id: item.id as string,
  name: item.name as string,
  tenantId: item.tenantId as string,
  description: str(item.description),
  memberCount: count(item.memberCount),
  createdAt: item.createdAt as string,
});

export function groupItem(group: GroupRecord) {
  return {
    ...identityKeys.group(group.tenantId, group.id),
    ...keys.newestFirst(identityKeys.groups(group.tenantId), group.createdAt, group.id),
    ...group,
    searchText: [group.name, group.description].filter(Boolean).join(' ').toLowerCase(),
  };
}

/**
 * The membership item: addressed under the group, and on gsi2 under the user (sorted by group
 * name) so a user's groups are one Query. It carries the group's name for that listing; group
 * names cannot change today, and a rename must rewrite these items.
 */
export function membershipItem(tenantId: string, group: { id: string; name: string }, userId: string, now: string) {
  return {
    ...identityKeys.groupMember(tenantId, group.id, userId),
    gsi2pk: identityKeys.userGroups(tenantId, userId),
    gsi2sk: `${group.name.toLowerCase()}#${group.id}`,
    tenantId,
    groupId: group.id,
    groupName: group.name,
    userId,
    createdAt: now,
  };
}

/** A membership item as the user detail lists it. */
export const toUserGroupRef = (item: Item): UserGroupRef => ({
  id: item.groupId as string,
  name: item.groupName as string,
});

// ---------------------------------------------------------------- departments

export interface DepartmentRecord {
  id: string;
  name: string;
  tenantId: string;
  parentId: string | null;
  parentName: string | null;
  childCount: number;
  userCount: number;
  createdAt: string;
}

export const toDepartment = (item: Item): DepartmentRecord => ({
  id: item.id as string,
  name: item.name as string,
  tenantId: item.tenantId as string,
  parentId: str(item.parentId),
  parentName: str(item.parentName),
  childCount: count(item.childCount),
  userCount: count(item.userCount),
  createdAt: item.createdAt as string,
});

/** The stored department: listed newest first in its tenant, and under its parent on gsi2; `depth` bounds nesting. */
export function departmentItem(department: DepartmentRecord, depth: number) {
  return {
    ...identityKeys.department(department.tenantId, department.id),
    ...keys.newestFirst(identityKeys.departments(department.tenantId), department.createdAt, department.id),
    gsi2pk: identityKeys.departmentChildren(department.tenantId, department.parentId),
    gsi2sk: `${department.createdAt}#${department.id}`,
    ...department,
    depth,
    searchText: department.name.toLowerCase(),
  };
}

// ---------------------------------------------------------------- tenants

export interface TenantRecord {
  id: string;
  slug: string;
  name: string;
  email: string;
  phone: string | null;
  planType: PlanTypeValue;
  status: TenantStatusValue;
  trialExpiresAt: string | null;
  maxAgents: number;
  maxKnowledgeBases: number;
  maxSeats: number;
  /** The month's token allowance of the LLM gateway (the plan's, or a SystemAdmin's override). */
  maxTokensPerMonth: number;
  /** Users in the tenant (active or not); redeeming an invitation adds one, deleting a user frees one. */
  seatCount: number;
  createdAt: string;
}

const num = (v: unknown, fallback = 0) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

export function toTenant(item: Item): TenantRecord {
  return {
    id: item.id as string,
    slug: str(item.slug) ?? '',
    name: str(item.name) ?? '',
    email: str(item.email) ?? '',
    phone: str(item.phone),
    planType: num(item.planType, 1) as PlanTypeValue,
    status: num(item.status, 0) as TenantStatusValue,
    trialExpiresAt: str(item.trialExpiresAt),
    maxAgents: num(item.maxAgents),
    maxKnowledgeBases: num(item.maxKnowledgeBases),
    maxSeats: num(item.maxSeats),
    // Tenants stored before the gateway carry no allowance: their plan's.
    maxTokensPerMonth: num(item.maxTokensPerMonth, planFeatures(num(item.planType, 1))?.maxTokensPerMonth ?? 0),
    seatCount: Math.max(0, num(item.seatCount)),
    createdAt: str(item.createdAt) ?? '',
  };
}

export const tenantSearchText = (t: Pick<TenantRecord, 'name' | 'slug'>) => `${t.name} ${t.slug}`.toLowerCase();

export function tenantItem(tenant: TenantRecord) {
  return {
    ...identityKeys.tenant(tenant.id),
    ...keys.newestFirst(identityKeys.tenants(), tenant.createdAt, tenant.id),
    ...tenant,
    searchText: tenantSearchText(tenant),
  };
}

/** A feature is on when its limit is above zero; the plan sets the limits' defaults. */
export const featuresOf = (t: Pick<TenantRecord, 'maxAgents' | 'maxKnowledgeBases'>) => ({
  aiAgents: t.maxAgents > 0,
  knowledgeBase: t.maxKnowledgeBases > 0,
});

export const toTenantSummary = (t: TenantRecord) => ({
  id: t.id,
  slug: t.slug,
  name: t.name,
  planType: t.planType,
  status: t.status,
  trialExpiresAt: t.trialExpiresAt,
  maxAgents: t.maxAgents,
  maxKnowledgeBases: t.maxKnowledgeBases,
  isActive: t.status === TENANT_STATUS_CODES.ACTIVE,
  createdAt: t.createdAt,
});

export const toTenantDetail = (t: TenantRecord) => ({
  ...toTenantSummary(t),
  email: t.email,
  phone: t.phone,
  maxSeats: t.maxSeats,
  seatCount: t.seatCount,
  maxTokensPerMonth: t.maxTokensPerMonth,
  features: featuresOf(t),
});

// ---------------------------------------------------------------- invitations

export interface InvitationRecord {
  id: string;
  tenantId: string;
  email: string;
  roles: string[];
  status: 'open' | 'used';
  firstName: string | null;
  lastName: string | null;
  invitedBy: string | null;
  expiresAt: string;
  /** Epoch seconds of `expiresAt`, for the redeem condition. */
  expiresAtEpoch: number;
  createdAt: string;
  usedAt?: string;
  usedBy?: string | null;
}

export function invitationItem(record: InvitationRecord) {
  return {
    ...identityKeys.invitation(record.tenantId, record.id),
    ...keys.newestFirst(identityKeys.invitations(record.tenantId), record.createdAt, record.id),
    ...record,
  };
}

/** What the code-hash lookup holds: where the invitation is. */
export interface InvitationLookup {
  tenantId: string;
  invitationId: string;
}

// ---------------------------------------------------------------- sessions

/** One refresh token, stored under the SHA-256 of its value. Rotated tokens stay to detect reuse. */
export interface RefreshTokenItem {
  familyId: string;
  userId: string;
  tenantId: string | null;
  status: 'active' | 'rotated';
  createdAt: string;
  /** Epoch seconds; the `ttl` attribute carries the same value (plus a day) for DynamoDB expiry. */
  expiresAt: number;
}

/** A rotation family: every token descending from one sign-in. Revoking it ends the session. */
export interface TokenFamily {
  familyId: string;
  userId: string;
  tenantId: string | null;
  rememberMe: boolean;
  /** The user's session version at sign-in; a password change or reset bumps the user's. */
  sessionVersion: number;
  createdAt: string;
  expiresAt: number;
  revokedAt?: string;
  revokedReason?: string;
}

// Expired items are kept a day past their expiry (TTL deletion is lazy anyway) so that reuse of a
// just-expired rotated token is still recognised.
export const sessionTtl = (expiresAt: number) => expiresAt + 24 * 3600;

export const refreshTokenItem = (tokenHash: string, token: RefreshTokenItem) => ({
  ...identityKeys.refreshToken(tokenHash),
  ...token,
  ttl: sessionTtl(token.expiresAt),
});

/** A family, listed under its user on gsi2 (revocation of every session of a user). */
export const tokenFamilyItem = (family: TokenFamily) => ({
  ...identityKeys.tokenFamily(family.familyId),
  ...family,
  gsi2pk: identityKeys.userTokenFamilies(family.userId),
  gsi2sk: `${family.createdAt}#${family.familyId}`,
  ttl: sessionTtl(family.expiresAt),
});

// ---------------------------------------------------------------- one-time secrets

export interface OneTimeItem {
  secretHash: string;
  salt: string;
  attempts: number;
  /** Spent attempts per source address (hashed), for codes. */
  byAddress?: Record<string, number>;
  /** Epoch seconds. */
  expiresAt: number;
  createdAt: string;
}

// ---------------------------------------------------------------- external sign-in

/** An OpenID Connect authorization flow, stored under the hash of its `state` until the callback. */
export interface AuthorizationFlow {
  provider: string;
  redirectUri: string;
  stateHash: string;
  nonceHash: string;
  /** Hash of the secret only the starting client received: a leaked callback URL is not enough. */
  bindingHash: string;
  codeVerifier: string | null;
  expiresAt: number;
  createdAt: string;
}

export const flowKey = (stateHash: string) => identityKeys.oneTime('OAUTH_STATE', `state:${stateHash}`);

/** A provider subject linked to a user. */
export interface IdentityLink {
  userId: string;
  tenantId: string | null;
  provider: string;
  subject: string;
  linkedAt: string;
}
