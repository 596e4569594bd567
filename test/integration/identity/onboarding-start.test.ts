import { describe, expect, it } from 'vitest';
import { sha256 } from '#shared/auth/opaque.ts';
import { countOf, listNewestFirst } from '#shared/data/collection.ts';
import { get } from '#shared/data/read.ts';
import { keys } from '#shared/data/keys.ts';
import { identityKeys } from '#areas/identity/records.ts';
import type { Write } from '#shared/data/commit.ts';
import {
  activatePendingTenantOnOwnerVerified,
  redeemInvitation,
  type InvitationRecord,
} from '#areas/identity/invitations.ts';
import { resolveRoles } from '#areas/identity/system-roles.ts';
import { getTenant } from '#areas/identity/tenant-model.ts';
import { createUser, type UserRecord } from '#areas/identity/user-accounts.ts';
import { invoke } from '#test/support/invoke.ts';
import { testMailer } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { userRecord, inOneRateWindow } from '#test/support/fixtures.ts';

let ipSeq = 0;
const ip = () => `10.77.${(++ipSeq >> 8) & 255}.${ipSeq & 255}`;
const tag = () => crypto.randomUUID().slice(0, 8);

const start = (body: Record<string, unknown>, from = ip()) =>
  invoke('POST', '/api/onboarding/start', { body, ip: from });
const startBody = (extra: Record<string, unknown> = {}) => ({
  tenantName: `Acme ${tag()}`,
  email: `founder-${tag()}@example.com`,
  firstName: 'Grace',
  lastName: 'Hopper',
  ...extra,
});

async function invitationOf(code: string) {
  const lookup = await get<{ tenantId: string; invitationId: string }>(identityKeys.invitationCode(sha256(code)));
  return (await get<InvitationRecord>(identityKeys.invitation(lookup!.tenantId, lookup!.invitationId), {
    consistent: true,
  }))!;
}

const newUser = (email: string, tenantId: string, roles: string[]): UserRecord =>
  userRecord({ email, firstName: 'Grace', lastName: 'Hopper', roles, tenantId });

describe('POST /api/onboarding/start', () => {
  it('creates a Pending tenant, its roles and an owner invitation, and e-mails the code (201)', async () => {
    const body = startBody({ tenantName: 'Zürich Widgets & Co.', email: `Founder-${tag()}@Example.com ` });
    const res = await start(body);
    expect(res).toAnswer(201);
    const code = res.json.result.invitationCode as string;
    expect(Object.keys(res.json.result)).toEqual(['invitationCode']);
    expect(code).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    const mail = testMailer.outbox.at(-1)!;
    expect(mail.to).toEqual([body.email.trim().toLowerCase()]);
    expect(mail.text).toContain(`Invitation code: ${code}`);
    expect(mail.subject).toBe('Set up your organisation');

    const invitation = await invitationOf(code);
    expect(invitation).toMatchObject({
      email: body.email.trim().toLowerCase(),
      roles: ['TenantOwner'],
      status: 'open',
    });
    expect(JSON.stringify(invitation)).not.toContain(code);
    expect(invitation.expiresAtEpoch - Date.now() / 1000).toBeGreaterThan(7 * 24 * 3600 - 60);

    const tenant = await getTenant(invitation.tenantId);
    expect(tenant).toMatchObject({
      slug: 'zurich-widgets-co',
      name: 'Zürich Widgets & Co.',
      status: 0,
      planType: 1,
      seatCount: 0,
      maxAgents: 1,
      maxKnowledgeBases: 1,
      maxSeats: 5,
    });
    expect(Date.parse(tenant!.trialExpiresAt!) - Date.now()).toBeGreaterThan(13 * 24 * 3600 * 1000);
    expect((await resolveRoles(tenant!.id, ['TenantOwner', 'TenantMember'])).missing).toEqual([]);

    const audit = await listNewestFirst<{ entityType: string; action: string; userName: string }>(
      keys.platformCollection('AUDIT'),
      {
        page: 1,
        pageSize: 50,
        where: { tenantId: tenant!.id },
      },
    );
    expect(audit.items.map((a) => `${a.entityType}.${a.action}`).sort()).toEqual([
      'Invitation.create',
      'Tenant.create',
    ]);
    expect(audit.items[0]!.userName).toBe(body.email.trim().toLowerCase());
  });

  it('makes the slug unique with a numbered suffix', async () => {
    const name = `Same Name ${tag()}`;
    const slugs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await start(startBody({ tenantName: name }));
      expect(res).toAnswer(201);
      slugs.push((await getTenant((await invitationOf(res.json.result.invitationCode)).tenantId))!.slug);
    }
    const base = name.toLowerCase().replace(/ /g, '-');
    expect(slugs).toEqual([base, `${base}-2`, `${base}-3`]);
  });

  it('derives a valid slug from names that have too few letters', async () => {
    for (const [tenantName, slug] of [
      ['!!', 'tenant'],
      ['X', 'x-tenant'],
      ['日本', 'tenant'],
    ] as const) {
      const res = await start(startBody({ tenantName }));
      expect(res).toAnswer(201);
      const t = await getTenant((await invitationOf(res.json.result.invitationCode)).tenantId);
      expect(t!.slug.startsWith(slug)).toBe(true);
      expect(t!.slug).toMatch(/^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])$/);
    }
  });

  it('refuses bad input with 400 and writes nothing', async () => {
    const tenants = await countOf(keys.platformCollection('TENANT'));
    const outbox = testMailer.outbox.length;
    for (const body of [
      startBody({ email: 'not-an-email' }),
      startBody({ tenantName: '' }),
      startBody({ tenantName: 'x'.repeat(201) }),
      startBody({ firstName: undefined }),
      { tenantName: 'Only name' },
    ]) {
      const res = await start(body);
      expect(res, JSON.stringify(body)).toAnswer(400, 'VALIDATION_ERROR');
    }
    const notJson = await invoke('POST', '/api/onboarding/start', { rawBody: '{"tenantName":', ip: ip() });
    expect(notJson.json.error.code).toBe('INVALID_JSON');
    expect(await countOf(keys.platformCollection('TENANT'))).toBe(tenants);
    expect(testMailer.outbox.length).toBe(outbox);
  });

  it('refuses an e-mail that already has an account (400 DUPLICATE_EMAIL)', async () => {
    const email = `taken-${tag()}@example.com`;
    await createUser(newUser(email, crypto.randomUUID(), []), null);
    const tenants = await countOf(keys.platformCollection('TENANT'));
    const res = await start(startBody({ email }));
    expect(res).toAnswer(400, 'DUPLICATE_EMAIL');
    expect(await countOf(keys.platformCollection('TENANT'))).toBe(tenants);
  });

  it('is rate-limited per IP like registration (5 per minute)', async () => {
    const from = ip();
    const statuses: number[] = [];
    await inOneRateWindow(async () => {
      for (let i = 0; i < 6; i++) statuses.push((await start(startBody(), from)).status);
    });
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
  });
});

describe('redeeming the owner invitation and activation', () => {
  it('joins the owner with TenantOwner, uses the code up, and activates the tenant on verification', async () => {
    const body = startBody();
    const code = (await start(body)).json.result.invitationCode as string;
    expect(await redeemInvitation(code, `someone-else-${tag()}@example.com`)).toBeNull();

    const redeemed = await redeemInvitation(code, body.email.toUpperCase());
    expect(redeemed).toMatchObject({ roles: ['TenantOwner'], auditEntries: 1, integrationEvents: 1 });
    const user = newUser(body.email, redeemed!.tenantId, redeemed!.roles);
    await createUser(user, null, redeemed!.writes);

    const tenant = await getTenant(redeemed!.tenantId);
    expect(tenant).toMatchObject({ status: 0, seatCount: 1 });
    expect((await resolveRoles(tenant!.id, ['TenantOwner'])).found[0]!.userCount).toBe(1);
    expect(await invitationOf(code)).toMatchObject({ status: 'used' });
    expect(await redeemInvitation(code, body.email)).toBeNull();

    await activatePendingTenantOnOwnerVerified({ ...user, isEmailVerified: true });
    expect((await getTenant(tenant!.id, true))!.status).toBe(1);
    const events = await listNewestFirst<{ eventType: string; data: string }>(
      keys.platformCollection('INTEGRATION_EVENT'),
      {
        page: 1,
        pageSize: 200,
        where: { eventType: 'tenant.status-changed' },
      },
    );
    const mine = events.items.map((e) => JSON.parse(e.data)).filter((d) => d.tenantId === tenant!.id);
    expect(mine).toEqual([
      { tenantId: tenant!.id, slug: tenant!.slug, from: 'PENDING', to: 'ACTIVE', reason: 'owner-verified-email' },
    ]);

    // Idempotent: a second verification, or one by a member, changes nothing.
    await activatePendingTenantOnOwnerVerified({ ...user, isEmailVerified: true });
    const after = await listNewestFirst(keys.platformCollection('AUDIT'), {
      page: 1,
      pageSize: 200,
      where: { entityId: tenant!.id, action: 'status-change' },
    });
    expect(after.totalCount).toBe(1);
  });

  it('ignores verification by a non-owner, and keeps suspended tenants suspended', async () => {
    const body = startBody();
    const code = (await start(body)).json.result.invitationCode as string;
    const { tenantId } = await invitationOf(code);
    await activatePendingTenantOnOwnerVerified(newUser(body.email, tenantId, ['TenantMember']));
    await activatePendingTenantOnOwnerVerified({ ...newUser(body.email, tenantId, ['TenantOwner']), tenantId: null });
    await activatePendingTenantOnOwnerVerified({ ...newUser(body.email, tenantId, ['TenantOwner']), isActive: false });
    expect((await getTenant(tenantId))!.status).toBe(0);

    const admin = await tokenFor({ role: 'SystemAdmin' });
    const { slug } = (await getTenant(tenantId))!;
    expect(
      await invoke('PUT', `/api/tenants/${slug}/status`, { token: admin, body: { newStatus: 'SUSPENDED' } }),
    ).toAnswer(200);
    await activatePendingTenantOnOwnerVerified(newUser(body.email, tenantId, ['TenantOwner']));
    expect((await getTenant(tenantId))!.status).toBe(2);
  });

  it('refuses unknown, expired and foreign codes, and codes of tenants that take no members', async () => {
    expect(await redeemInvitation('no-such-code', 'x@example.com')).toBeNull();
    expect(await redeemInvitation('', 'x@example.com')).toBeNull();
    const body = startBody();
    const code = (await start(body)).json.result.invitationCode as string;
    const eightDays = new Date(Date.now() + 8 * 24 * 3600 * 1000);
    expect(await redeemInvitation(code, body.email, null, eightDays)).toBeNull();
    expect(await redeemInvitation(code, body.email)).not.toBeNull();
    expect(await redeemInvitation(code.slice(0, -1), body.email)).toBeNull();

    // The code was valid when read but expired before the write: the invitation condition fails.
    const sixDays = new Date(Date.now() + 6 * 24 * 3600 * 1000);
    const late = await redeemInvitation(code, body.email, null, sixDays);
    const stale = {
      ...late!,
      writes: late!.writes.map((item, i) =>
        i === 0 ? withNow(item, Math.floor(Date.now() / 1000) + 8 * 24 * 3600) : item,
      ),
    };
    await expect(
      createUser(newUser(body.email, stale.tenantId, stale.roles), null, stale.writes),
    ).rejects.toMatchObject({ status: 400, code: 'INVALID_INVITATION' });
    expect(await get(keys.unique('EMAIL', body.email))).toBeUndefined();
    expect((await getTenant(stale.tenantId))!.seatCount).toBe(0);

    // A suspended or cancelled tenant takes no members: its open codes redeem nothing.
    const admin = await tokenFor({ role: 'SystemAdmin' });
    const { slug } = (await getTenant(stale.tenantId))!;
    await invoke('PUT', `/api/tenants/${slug}/status`, { token: admin, body: { newStatus: 'SUSPENDED' } });
    expect(await redeemInvitation(code, body.email)).toBeNull();
    await invoke('PUT', `/api/tenants/${slug}/status`, { token: admin, body: { newStatus: 'ACTIVE' } });
    expect(await redeemInvitation(code, body.email)).not.toBeNull();
    await invoke('PUT', `/api/tenants/${slug}/status`, { token: admin, body: { newStatus: 'CANCELLED' } });
    expect(await redeemInvitation(code, body.email)).toBeNull();
  });
});

/** The invitation update of redeem writes with its `:now` moved (to simulate expiry between read and write). */
function withNow(item: Write, nowEpoch: number): Write {
  const update = item.Update!;
  return {
    ...item,
    Update: { ...update, ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':now': nowEpoch } },
  };
}
