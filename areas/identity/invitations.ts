import type { Principal } from '#shared/auth/access-token.ts';
import { epochSeconds, randomToken, sha256 } from '#shared/auth/opaque.ts';
import { isSystemAdmin } from '#shared/auth/tenant-scope.ts';
import { auditPut } from '#shared/data/audit.ts';
import { bumpCounter } from '#shared/data/collection.ts';
import {
  commitChange,
  orConflict,
  putNew,
  updateItem,
  type Change,
  type TransactItem,
  type Write,
} from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { ApiError, conflict, forbidden, validationError } from '#shared/http/errors.ts';
import { invalidInvitation, seatLimitReached } from './errors.ts';
import { config } from '#shared/platform/config.ts';
import { sendEmail } from '#shared/queue/email.ts';
import { assertMayGrant } from './ceiling.ts';
import { countIntegrationEvents, integrationEventPut } from '#shared/data/integration-events.ts';
import { membershipChangeItems } from './org-counters.ts';
import {
  identityKeys,
  invitationItem,
  normalizeEmail,
  type InvitationLookup,
  type InvitationRecord,
  type TenantRecord,
  type UserRecord,
} from './records.ts';
import { resolveRoles, systemRoleName } from './system-roles.ts';
import { acceptsMembers } from './tenant-status.ts';
import { actingAs, getTenant, statusChange, type Actor } from './tenant-model.ts';
import { TENANT_STATUS_CODES } from './vocabulary.ts';
import { committedUnless } from '#shared/data/write-one.ts';

export type { InvitationRecord };

/** An invitation is open for 7 days; after that, or once used, its code redeems nothing. */
const INVITATION_TTL_SECONDS = 7 * 24 * 3600;

export interface NewInvitation {
  tenantId: string;
  email: string;
  /** Canonical role names of the tenant. */
  roles: string[];
  firstName?: string | null;
  lastName?: string | null;
  actor: Actor;
  now?: Date;
}

/**
 * A new invitation as writes: the invitation, the lookup by code hash (kept a month past expiry,
 * then removed by TTL), the tenant's invitation counter and the `membership.invited` event;
 * `change` is its audit entry. The code itself is only returned, never stored.
 */
export function newInvitation(input: NewInvitation) {
  const now = input.now ?? new Date();
  const code = randomToken(24);
  const createdAt = now.toISOString();
  const expiresAtEpoch = epochSeconds(now.getTime()) + INVITATION_TTL_SECONDS;
  const record: InvitationRecord = {
    id: crypto.randomUUID(),
    tenantId: input.tenantId,
    email: normalizeEmail(input.email),
    roles: input.roles,
    status: 'open',
    firstName: input.firstName ?? null,
    lastName: input.lastName ?? null,
    invitedBy: input.actor?.userId ?? null,
    expiresAt: new Date(expiresAtEpoch * 1000).toISOString(),
    expiresAtEpoch,
    createdAt,
  };
  const lookup: InvitationLookup = { tenantId: record.tenantId, invitationId: record.id };
  const writes: Write[] = [
    putNew(invitationItem(record)),
    putNew({ ...identityKeys.invitationCode(sha256(code)), ...lookup, ttl: expiresAtEpoch + 30 * 24 * 3600 }),
    bumpCounter(identityKeys.invitations(record.tenantId), 1),
    integrationEventPut(
      'membership.invited',
      { tenantId: record.tenantId, invitationId: record.id, roles: record.roles },
      createdAt,
    ),
  ];
  const change: Change = {
    entityType: 'Invitation',
    entityId: record.id,
    action: 'create',
    changes: { email: record.email, roles: record.roles },
    actor: input.actor,
    tenantId: record.tenantId,
  };
  return { code, record, writes, change, integrationEvents: 1 };
}

/**
 * The invitation e-mail; the code is on its own line `Invitation code: <code>`. The tenant's name is
 * someone's input and the mail may go to any address: it never reaches the subject, and the body
 * shows it quoted as a name (names cannot hold links or control characters).
 */
export async function sendInvitationEmail(
  invitation: InvitationRecord,
  code: string,
  tenant: Pick<TenantRecord, 'name' | 'slug'>,
) {
  const owner = invitation.roles.includes('TenantOwner');
  const named = `the organisation named "${tenant.name}"`;
  const what = owner ? `set up ${named} as its owner` : `join ${named}`;
  const registerUrl = `${config.publicBaseUrl}/register?invitationCode=${encodeURIComponent(code)}`;
  const text = [
    'Hello,',
    '',
    `You have been invited to ${what}.`,
    `Invitation code: ${code}`,
    '',
    'Register with this e-mail address and the code (POST /api/auth/register with invitationCode)' +
      ` before ${invitation.expiresAt}.`,
    registerUrl,
    '',
    'If you do not expect this invitation, ignore this message.',
  ].join('\n');
  const html = [
    '<p>Hello,</p>',
    `<p>You have been invited to ${escapeHtml(what)}.</p>`,
    `<p>Invitation code: <strong>${escapeHtml(code)}</strong></p>`,
    `<p>Register with this e-mail address and the code before ${escapeHtml(invitation.expiresAt)}.</p>`,
    '<p>If you do not expect this invitation, ignore this message.</p>',
  ].join('');
  await sendEmail({
    to: [invitation.email],
    subject: owner ? 'Set up your organisation' : 'Your invitation',
    text,
    html,
  });
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface RedeemedInvitation {
  tenantId: string;
  roles: string[];
  invitationId: string;
  /**
   * Join the new user's creation transaction: the invitation marked used (only while it is open and
   * unexpired: 400 INVALID_INVITATION otherwise), a seat taken on the tenant (only while seatCount <
   * maxSeats: 409 SEAT_LIMIT_REACHED), the membership counters, the redeem's audit entry and the
   * `membership.joined` event.
   */
  writes: Write[];
  /** Audit entries and integration events in `writes`: count them after the transaction commits. */
  auditEntries: number;
  integrationEvents: number;
}

/**
 * Checks an invitation code for a registering e-mail. Null when the code is unknown, used,
 * expired, for another e-mail, or its tenant no longer accepts members (the caller answers one
 * 400 for all of these, revealing nothing). `userId`, when given, is recorded as the invitee.
 */
export async function redeemInvitation(
  code: string,
  email: string,
  userId: string | null = null,
  now = new Date(),
): Promise<RedeemedInvitation | null> {
  if (!code || code.length > 512) return null;
  const lookup = await get<Partial<InvitationLookup>>(identityKeys.invitationCode(sha256(code)));
  if (!lookup?.tenantId || !lookup.invitationId) return null;
  const { tenantId, invitationId } = lookup;
  const invitation = await get<InvitationRecord>(identityKeys.invitation(tenantId, invitationId), { consistent: true });
  const nowEpoch = epochSeconds(now.getTime());
  if (invitation?.status !== 'open' || invitation.expiresAtEpoch <= nowEpoch) return null;
  if (invitation.email !== normalizeEmail(email)) return null;
  const tenant = await getTenant(tenantId, true);
  if (!tenant || !acceptsMembers(tenant)) return null;

  let membership: TransactItem[];
  try {
    membership = await membershipChangeItems(tenantId, userId ?? invitation.id, null, {
      roles: invitation.roles,
      departmentId: null,
    });
  } catch (err) {
    if (err instanceof ApiError) return null; // a role of the invitation no longer exists
    throw err;
  }
  const at = now.toISOString();
  return {
    tenantId,
    roles: [...invitation.roles],
    invitationId,
    writes: redeemWrites({ tenantId, invitationId, userId, at, nowEpoch, membership }, [
      auditPut(
        {
          entityType: 'Invitation',
          entityId: invitationId,
          action: 'redeem',
          changes: { email: invitation.email, roles: invitation.roles, userId },
          actor: actingAs(userId, invitation.email),
          tenantId,
        },
        at,
      ),
      integrationEventPut('membership.joined', { tenantId, invitationId, userId, roles: invitation.roles }, at),
    ]),
    auditEntries: 1,
    integrationEvents: 1,
  };
}

/**
 * The conditional part of a redeem, each item with its answer: the invitation used or expired
 * meanwhile, or a role of it gone (its counter), is 400 INVALID_INVITATION; no free seat left is
 * 409 SEAT_LIMIT_REACHED.
 */
export function redeemWrites(
  r: {
    tenantId: string;
    invitationId: string;
    userId: string | null;
    at: string;
    nowEpoch: number;
    membership: TransactItem[];
  },
  records: TransactItem[] = [],
): Write[] {
  return [
    orConflict(
      updateItem(
        identityKeys.invitation(r.tenantId, r.invitationId),
        { status: 'used', usedAt: r.at, usedBy: r.userId },
        {
          condition: '#status = :open AND expiresAtEpoch > :now',
          names: { '#status': 'status' },
          values: { ':open': 'open', ':now': r.nowEpoch },
        },
      ),
      invalidInvitation(),
    ),
    orConflict(seatItem(r.tenantId, 1), seatLimitReached()),
    ...r.membership.map((item) => orConflict(item, invalidInvitation())),
    ...records,
  ];
}

/**
 * Takes (+1) or frees (-1) a seat on the tenant item. Taking one is conditional on a free seat,
 * so concurrent joins can never pass `maxSeats`.
 */
export function seatItem(tenantId: string, by: 1 | -1): TransactItem {
  return {
    Update: {
      TableName: config.tableName,
      Key: identityKeys.tenant(tenantId),
      UpdateExpression: 'ADD seatCount :by',
      ConditionExpression:
        by > 0
          ? [
              'attribute_exists(pk) AND (attribute_not_exists(maxSeats)',
              'OR (attribute_not_exists(seatCount) AND maxSeats > :zero) OR seatCount < maxSeats)',
            ].join(' ')
          : 'attribute_exists(pk)',
      ExpressionAttributeValues: by > 0 ? { ':by': by, ':zero': 0 } : { ':by': by },
    },
  };
}

/**
 * Called once a user's e-mail is verified: when the user is a TenantOwner of a Pending tenant,
 * the tenant becomes Active (audit entry and `tenant.status-changed` event). Anything else,
 * including a tenant already active, is a no-op.
 */
export async function activatePendingTenantOnOwnerVerified(user: UserRecord): Promise<void> {
  if (!user.tenantId || !user.isActive || !user.roles.includes('TenantOwner')) return;
  const tenant = await getTenant(user.tenantId, true);
  if (!tenant || tenant.status !== TENANT_STATUS_CODES.PENDING) return;
  // Activated (or changed by an administrator) in the meantime: nothing left to do.
  const moved = conflict('The tenant status changed meanwhile');
  const activation = statusChange(
    tenant,
    TENANT_STATUS_CODES.ACTIVE,
    { userId: user.id, email: user.email },
    'owner-verified-email',
    moved,
  );
  if (await committedUnless(commitChange(activation.writes, activation.change), moved)) return;
  await countIntegrationEvents(activation.integrationEvents);
}

/**
 * Role names a caller may give a tenant user, in their canonical spelling. SystemAdmin is a
 * platform role: 403 for anyone but a SystemAdmin, and 400 for a SystemAdmin (never a tenant
 * user's role). Names that are not roles of the tenant are 400 naming them. The permission
 * ceiling applies (`assertMayGrant`): TenantOwner only from a TenantOwner or SystemAdmin, any other
 * role only from a caller holding all of its permissions (403).
 */
export async function assignableRoles(
  tenantId: string,
  names: string[],
  principal: Principal,
  path = 'body.roles',
): Promise<string[]> {
  if (names.some((n) => systemRoleName(n) === 'SystemAdmin')) {
    if (!isSystemAdmin(principal)) throw forbidden('Only a SystemAdmin can grant SystemAdmin');
    throw validationError([{ path, message: 'SystemAdmin is a platform role and cannot be given to a tenant user' }]);
  }
  const { found, missing } = await resolveRoles(tenantId, names);
  if (missing.length) throw validationError([{ path, message: `Not a role of this tenant: ${missing.join(', ')}` }]);
  assertMayGrant(principal, found);
  return found.map((r) => r.name);
}
