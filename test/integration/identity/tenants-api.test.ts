import { beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '#shared/auth/opaque.ts';
import { countOf, listNewestFirst } from '#shared/data/collection.ts';
import { get } from '#shared/data/read.ts';
import { keys } from '#shared/data/keys.ts';
import { identityKeys } from '#areas/identity/records.ts';
import { redeemInvitation } from '#areas/identity/invitations.ts';
import { resolveRoles, systemRoleId } from '#areas/identity/system-roles.ts';
import { createUser } from '#areas/identity/user-accounts.ts';
import { invoke } from '#test/support/invoke.ts';
import { testMailer } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { userRecord } from '#test/support/fixtures.ts';

let admin: string;
const tag = () => crypto.randomUUID().slice(0, 8);

interface Tenant {
  id: string;
  slug: string;
  owner: string;
  member: string;
}

const tenantBody = (slug: string, extra: Record<string, unknown> = {}) => ({
  slug,
  name: `Tenant ${slug}`,
  email: `Owner@${slug}.example.com`,
  phone: '+1 555 0100',
  planType: 2,
  maxAgents: 5,
  maxKnowledgeBases: 3,
  maxSeats: 10,
  ...extra,
});

async function newTenant(extra: Record<string, unknown> = {}): Promise<Tenant> {
  const slug = `t-${tag()}`;
  const res = await invoke('POST', '/api/tenants', { token: admin, body: tenantBody(slug, extra) });
  expect(res).toAnswer(201);
  const id = res.json.result.id as string;
  return {
    id,
    slug,
    owner: await tokenFor({ tenantId: id, role: 'TenantOwner' }),
    member: await tokenFor({ tenantId: id, role: 'TenantMember' }),
  };
}

/** Registration with an invitation code, as the sign-in area does it: createUser with the redeem items. */
async function join(code: string, email: string) {
  const redeemed = await redeemInvitation(code, email);
  if (!redeemed) return { ok: false as const, reason: 'invalid' };
  const id = crypto.randomUUID();
  try {
    await createUser(
      userRecord({
        id,
        email,
        firstName: 'New',
        lastName: 'Member',
        roles: redeemed.roles,
        tenantId: redeemed.tenantId,
      }),
      null,
      redeemed.writes,
    );
  } catch (error) {
    return { ok: false as const, reason: 'tx', error };
  }
  return { ok: true as const, id };
}

const audits = async (entityId: string) =>
  (
    await listNewestFirst<{ action: string; changes: string; entityType: string }>(keys.platformCollection('AUDIT'), {
      page: 1,
      pageSize: 100,
      where: { entityId },
    })
  ).items;
const events = async (eventType: string) =>
  (
    await listNewestFirst<{ data: string; status: string }>(keys.platformCollection('INTEGRATION_EVENT'), {
      page: 1,
      pageSize: 100,
      where: { eventType },
    })
  ).items;

const lastCode = () => /Invitation code: (\S+)/.exec(testMailer.outbox.at(-1)!.text)![1]!;

beforeAll(async () => {
  admin = await tokenFor({ role: 'SystemAdmin' });
});

describe('POST /api/tenants', () => {
  it('creates an Active tenant with its system roles, an audit entry and an event (SystemAdmin)', async () => {
    const slug = `acme-${tag()}`;
    const res = await invoke('POST', '/api/tenants', {
      token: admin,
      body: { ...tenantBody(slug), status: 0, seatCount: 99, id: crypto.randomUUID() },
    });
    expect(res).toAnswer(201);
    const t = res.json.result;
    expect(t).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      slug,
      name: `Tenant ${slug}`,
      email: `owner@${slug}.example.com`,
      phone: '+1 555 0100',
      planType: 2,
      status: 1,
      trialExpiresAt: null,
      maxAgents: 5,
      maxKnowledgeBases: 3,
      maxSeats: 10,
      seatCount: 0,
      // The Professional plan's month token allowance (LLM gateway).
      maxTokensPerMonth: 1_000_000,
      features: { aiAgents: true, knowledgeBase: true },
      isActive: true,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const { found } = await resolveRoles(t.id, ['TenantOwner', 'TenantMember']);
    expect(found.map((r) => [r.name, r.isSystem, r.id])).toEqual([
      ['TenantOwner', true, systemRoleId(t.id, 'TenantOwner')],
      ['TenantMember', true, systemRoleId(t.id, 'TenantMember')],
    ]);
    const [audit] = await audits(t.id);
    expect(audit).toMatchObject({ entityType: 'Tenant', action: 'create' });
    expect(JSON.parse(audit!.changes)).toMatchObject({ slug, planType: 2, maxSeats: 10 });
    const created = (await events('tenant.created')).find((e) => JSON.parse(e.data).tenantId === t.id);
    expect(created).toMatchObject({ status: 'recorded' });
    expect(JSON.parse(created!.data)).toMatchObject({ slug, source: 'admin' });
  });

  it('derives features from the limits: a zero limit turns its feature off', async () => {
    const res = await invoke('POST', '/api/tenants', {
      token: admin,
      body: tenantBody(`f-${tag()}`, { planType: 1, maxAgents: 0, maxKnowledgeBases: 2 }),
    });
    expect(res.json.result.features).toEqual({ aiAgents: false, knowledgeBase: true });
  });

  it('refuses a taken slug with 409 CONFLICT, writing nothing', async () => {
    const { slug } = await newTenant();
    const before = await countOf(keys.platformCollection('TENANT'));
    const res = await invoke('POST', '/api/tenants', { token: admin, body: tenantBody(slug, { name: 'Other' }) });
    expect(res).toAnswer(409, 'CONFLICT');
    expect(await countOf(keys.platformCollection('TENANT'))).toBe(before);
  });

  it('refuses bad slugs, plan types and limits with 400 VALIDATION_ERROR, writing nothing', async () => {
    const before = await countOf(keys.platformCollection('TENANT'));
    const bad: [Record<string, unknown>, string][] = [
      [{ slug: 'ab' }, 'body.slug'],
      [{ slug: 'Acme' }, 'body.slug'],
      [{ slug: '-acme' }, 'body.slug'],
      [{ slug: 'acme-' }, 'body.slug'],
      [{ slug: 'ac_me' }, 'body.slug'],
      [{ slug: 'ac me' }, 'body.slug'],
      [{ slug: 'a'.repeat(64) }, 'body.slug'],
      [{ planType: 0 }, 'body.planType'],
      [{ planType: 4 }, 'body.planType'],
      [{ planType: 1.5 }, 'body.planType'],
      [{ planType: '2' }, 'body.planType'],
      [{ maxAgents: -1 }, 'body.maxAgents'],
      [{ maxKnowledgeBases: -5 }, 'body.maxKnowledgeBases'],
      [{ maxSeats: -1 }, 'body.maxSeats'],
      [{ maxSeats: 2.5 }, 'body.maxSeats'],
      [{ email: 'not-an-email' }, 'body.email'],
      [{ name: '' }, 'body.name'],
    ];
    for (const [patch, path] of bad) {
      const res = await invoke('POST', '/api/tenants', {
        token: admin,
        body: { ...tenantBody(`ok-${tag()}`), ...patch },
      });
      expect(res, JSON.stringify(patch)).toAnswer(400, 'VALIDATION_ERROR');
      expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    const missing = await invoke('POST', '/api/tenants', { token: admin, body: { slug: `m-${tag()}` } });
    expect(missing).toAnswer(400);
    expect(await countOf(keys.platformCollection('TENANT'))).toBe(before);
  });

  it('accepts the slug edge cases 3 and 63 characters long', async () => {
    for (const slug of [`a${tag().slice(0, 1)}9`, `${tag()}${'x'.repeat(55)}`]) {
      const res = await invoke('POST', '/api/tenants', { token: admin, body: tenantBody(slug) });
      expect(res, slug).toAnswer(201);
    }
  });

  it('is SystemAdmin only (403 for a TenantOwner or TenantMember)', async () => {
    const t = await newTenant();
    for (const token of [t.owner, t.member]) {
      const res = await invoke('POST', '/api/tenants', { token, body: tenantBody(`x-${tag()}`) });
      expect(res).toAnswer(403, 'FORBIDDEN');
    }
    expect(await invoke('POST', '/api/tenants', { body: tenantBody(`x-${tag()}`) })).toAnswer(401);
  });
});

describe('GET /api/tenants and /api/tenants/{slug}', () => {
  it('lists all tenants for a SystemAdmin newest first, with search, planType and statusFilter', async () => {
    const marker = tag();
    const a = await invoke('POST', '/api/tenants', {
      token: admin,
      body: tenantBody(`alpha-${marker}`, { planType: 1 }),
    });
    const b = await invoke('POST', '/api/tenants', {
      token: admin,
      body: tenantBody(`beta-${marker}`, { planType: 3, name: `Beta Corp ${marker}` }),
    });
    await invoke('PUT', `/api/tenants/beta-${marker}/status`, { token: admin, body: { newStatus: 'SUSPENDED' } });

    const all = await invoke('GET', '/api/tenants', { token: admin, query: { pageSize: 100 } });
    expect(all).toAnswer(200);
    expect(all.json.result.totalCount).toBe(await countOf(keys.platformCollection('TENANT')));
    const ids = all.json.result.items.map((t: { id: string }) => t.id);
    expect(ids.indexOf(b.json.result.id)).toBeLessThan(ids.indexOf(a.json.result.id));
    expect(Object.keys(all.json.result.items[0]).sort()).toEqual(
      [
        'createdAt',
        'id',
        'isActive',
        'maxAgents',
        'maxKnowledgeBases',
        'name',
        'planType',
        'slug',
        'status',
        'trialExpiresAt',
      ].sort(),
    );

    const search = await invoke('GET', '/api/tenants', { token: admin, query: { search: marker.toUpperCase() } });
    expect(search.json.result.totalCount).toBe(2);
    const byName = await invoke('GET', '/api/tenants', { token: admin, query: { search: `beta corp ${marker}` } });
    expect(byName.json.result.items.map((t: { slug: string }) => t.slug)).toEqual([`beta-${marker}`]);
    const plan = await invoke('GET', '/api/tenants', { token: admin, query: { search: marker, planType: 1 } });
    expect(plan.json.result.items.map((t: { slug: string }) => t.slug)).toEqual([`alpha-${marker}`]);
    const suspended = await invoke('GET', '/api/tenants', {
      token: admin,
      query: { search: marker, statusFilter: 'SUSPENDED' },
    });
    expect(suspended.json.result.items).toMatchObject([{ slug: `beta-${marker}`, status: 2, isActive: false }]);
    const active = await invoke('GET', '/api/tenants', {
      token: admin,
      query: { search: marker, statusFilter: 'active' },
    });
    expect(active.json.result.items.map((t: { slug: string }) => t.slug)).toEqual([`alpha-${marker}`]);
    const paged = await invoke('GET', '/api/tenants', {
      token: admin,
      query: { search: marker, pageSize: 1, page: 2 },
    });
    expect(paged.json.result).toMatchObject({ totalCount: 2, totalPages: 2, page: 2, pageSize: 1 });
    expect(paged.json.result.items[0].slug).toBe(`alpha-${marker}`);
  });

  it('refuses an unknown statusFilter or planType with 400', async () => {
    const queries: Record<string, string | number>[] = [
      { statusFilter: 'BLOCKED' },
      { statusFilter: '1' },
      { planType: 0 },
      { planType: 4 },
      { planType: 'x' },
    ];
    for (const query of queries) {
      const res = await invoke('GET', '/api/tenants', { token: admin, query });
      expect(res, JSON.stringify(query)).toAnswer(400, 'VALIDATION_ERROR');
    }
  });

  it('shows a TenantOwner only its own tenant, and a TenantMember nothing (403)', async () => {
    const a = await newTenant();
    await newTenant();
    const own = await invoke('GET', '/api/tenants', { token: a.owner });
    expect(own).toAnswer(200);
    expect(own.json.result).toMatchObject({ totalCount: 1, totalPages: 1, page: 1 });
    expect(own.json.result.items.map((t: { id: string }) => t.id)).toEqual([a.id]);
    const filtered = await invoke('GET', '/api/tenants', { token: a.owner, query: { statusFilter: 'SUSPENDED' } });
    expect(filtered.json.result).toMatchObject({ totalCount: 0, items: [] });
    const page2 = await invoke('GET', '/api/tenants', { token: a.owner, query: { page: 2 } });
    expect(page2.json.result).toMatchObject({ totalCount: 1, items: [] });
    expect(await invoke('GET', '/api/tenants', { token: a.member })).toAnswer(403);
  });

  it('gives the detail of the own tenant, 404 for another tenant or an unknown slug', async () => {
    const a = await newTenant();
    const b = await newTenant();
    for (const token of [a.owner, a.member, admin]) {
      const res = await invoke('GET', `/api/tenants/${a.slug}`, { token });
      expect(res).toAnswer(200);
      expect(res.json.result).toMatchObject({
        id: a.id,
        slug: a.slug,
        maxSeats: 10,
        features: { aiAgents: true, knowledgeBase: true },
      });
    }
    const foreign = await invoke('GET', `/api/tenants/${b.slug}`, { token: a.owner });
    expect(foreign).toAnswer(404, 'NOT_FOUND');
    expect(await invoke('GET', `/api/tenants/no-such-${tag()}`, { token: admin })).toAnswer(404);
    expect(await invoke('GET', '/api/tenants/Bad_Slug', { token: admin })).toAnswer(400);
  });
});

describe('PUT /api/tenants/{slug}', () => {
  it('lets the owner change name, e-mail and phone (200 detail, audit, event)', async () => {
    const t = await newTenant();
    const res = await invoke('PUT', `/api/tenants/${t.slug}`, {
      token: t.owner,
      body: { name: 'Renamed Ltd', email: 'NEW@x.example.com', phone: null },
    });
    expect(res).toAnswer(200);
    expect(res.json.result).toMatchObject({
      name: 'Renamed Ltd',
      email: 'new@x.example.com',
      phone: '+1 555 0100',
      planType: 2,
      maxSeats: 10,
    });
    const cleared = await invoke('PUT', `/api/tenants/${t.slug}`, { token: t.owner, body: { phone: '' } });
    expect(cleared.json.result.phone).toBeNull();
    const got = await invoke('GET', `/api/tenants/${t.slug}`, { token: t.owner });
    expect(got.json.result).toMatchObject({ name: 'Renamed Ltd', email: 'new@x.example.com', phone: null });
    const updates = (await audits(t.id)).filter((a) => a.action === 'update');
    expect(updates.map((a) => JSON.parse(a.changes))).toEqual([
      { phone: null },
      { name: 'Renamed Ltd', email: 'new@x.example.com' },
    ]);
    expect((await events('tenant.updated')).some((e) => JSON.parse(e.data).tenantId === t.id)).toBe(true);
    const search = await invoke('GET', '/api/tenants', { token: admin, query: { search: 'renamed ltd' } });
    expect(search.json.result.items.map((x: { id: string }) => x.id)).toContain(t.id);
  });

  it('keeps plan and limits SystemAdmin-only: 403 for the owner, nothing changed', async () => {
    const t = await newTenant();
    for (const body of [
      { planType: 3 },
      { maxSeats: 50 },
      { maxAgents: 9, name: 'Sneaky' },
      { maxKnowledgeBases: 0 },
    ]) {
      const res = await invoke('PUT', `/api/tenants/${t.slug}`, { token: t.owner, body });
      expect(res, JSON.stringify(body)).toAnswer(403);
    }
    const same = await invoke('PUT', `/api/tenants/${t.slug}`, {
      token: t.owner,
      body: { planType: 2, maxSeats: 10, name: 'Fine' },
    });
    expect(same).toAnswer(200);
    const got = await invoke('GET', `/api/tenants/${t.slug}`, { token: admin });
    expect(got.json.result).toMatchObject({
      name: 'Fine',
      planType: 2,
      maxAgents: 5,
      maxKnowledgeBases: 3,
      maxSeats: 10,
    });
    const byAdmin = await invoke('PUT', `/api/tenants/${t.slug}`, {
      token: admin,
      body: { planType: 3, maxAgents: 0, maxKnowledgeBases: 7, maxSeats: 40 },
    });
    expect(byAdmin).toAnswer(200);
    expect(byAdmin.json.result).toMatchObject({
      planType: 3,
      maxAgents: 0,
      maxSeats: 40,
      features: { aiAgents: false, knowledgeBase: true },
    });
  });

  it('refuses bad values (400), other tenants (404), members (403), maxSeats below the seats in use (409)', async () => {
    const a = await newTenant({ maxSeats: 3 });
    const b = await newTenant();
    for (const body of [{ planType: 0 }, { planType: 4 }, { maxSeats: -1 }, { maxAgents: -2 }, { email: 'nope' }]) {
      expect(await invoke('PUT', `/api/tenants/${a.slug}`, { token: admin, body }), JSON.stringify(body)).toAnswer(400);
    }
    expect(await invoke('PUT', `/api/tenants/${a.slug}`, { token: b.owner, body: { name: 'Hijack' } })).toAnswer(404);
    expect(await invoke('PUT', `/api/tenants/${a.slug}`, { token: a.member, body: { name: 'Member' } })).toAnswer(403);

    for (const email of ['one@seat.example.com', 'two@seat.example.com']) {
      const inv = await invoke('POST', `/api/tenants/${a.slug}/invitations`, {
        token: admin,
        body: { email, roles: ['TenantMember'] },
      });
      expect((await join(inv.json.result.invitationCode, email)).ok).toBe(true);
    }
    const below = await invoke('PUT', `/api/tenants/${a.slug}`, { token: admin, body: { maxSeats: 1 } });
    expect(below).toAnswer(409, 'CONFLICT');
    expect(await invoke('PUT', `/api/tenants/${a.slug}`, { token: admin, body: { maxSeats: 2 } })).toAnswer(200);
    const got = await invoke('GET', `/api/tenants/${a.slug}`, { token: admin });
    expect(got.json.result).toMatchObject({ name: `Tenant ${a.slug}`, maxSeats: 2, seatCount: 2 });
  });
});

describe('PUT /api/tenants/{slug}/status', () => {
  it('moves between ACTIVE and SUSPENDED, ends at CANCELLED (final: 409), with audit and events', async () => {
    const t = await newTenant();
    const suspend = await invoke('PUT', `/api/tenants/${t.slug}/status`, {
      token: admin,
      body: { newStatus: 'SUSPENDED' },
    });
    expect(suspend).toAnswer(200);
    expect(suspend.json.result).toMatchObject({ status: 2, isActive: false });
    const again = await invoke('PUT', `/api/tenants/${t.slug}/status`, {
      token: admin,
      body: { newStatus: 'suspended' },
    });
    expect(again).toAnswer(200);
    expect(
      (await invoke('PUT', `/api/tenants/${t.slug}/status`, { token: admin, body: { newStatus: 'ACTIVE' } })).json
        .result,
    ).toMatchObject({ status: 1, isActive: true });
    expect(
      (await invoke('PUT', `/api/tenants/${t.slug}/status`, { token: admin, body: { newStatus: 'CANCELLED' } })).json
        .result.status,
    ).toBe(3);
    for (const newStatus of ['ACTIVE', 'SUSPENDED']) {
      const res = await invoke('PUT', `/api/tenants/${t.slug}/status`, { token: admin, body: { newStatus } });
      expect(res).toAnswer(409, 'CONFLICT');
    }
    const changes = (await audits(t.id))
      .filter((a) => a.action === 'status-change')
      .map((a) => JSON.parse(a.changes).status);
    expect(changes).toEqual([3, 1, 2]);
    const moves = (await events('tenant.status-changed'))
      .map((e) => JSON.parse(e.data))
      .filter((d) => d.tenantId === t.id);
    expect(moves.map((d) => `${d.from}>${d.to}`)).toEqual(['ACTIVE>CANCELLED', 'SUSPENDED>ACTIVE', 'ACTIVE>SUSPENDED']);
  });

  it('refuses unknown or PENDING status strings (400), tenant users (403) and unknown slugs (404)', async () => {
    const t = await newTenant();
    for (const newStatus of ['PENDING', 'BLOCKED', '', 1, null]) {
      const res = await invoke('PUT', `/api/tenants/${t.slug}/status`, { token: admin, body: { newStatus } });
      expect(res, String(newStatus)).toAnswer(400, 'VALIDATION_ERROR');
    }
    expect(
      await invoke('PUT', `/api/tenants/${t.slug}/status`, { token: t.owner, body: { newStatus: 'SUSPENDED' } }),
    ).toAnswer(403);
    expect(
      await invoke('PUT', `/api/tenants/nope-${tag()}/status`, { token: admin, body: { newStatus: 'ACTIVE' } }),
    ).toAnswer(404);
    expect((await invoke('GET', `/api/tenants/${t.slug}`, { token: admin })).json.result.status).toBe(1);
  });
});

describe('POST /api/tenants/{slug}/invitations', () => {
  it('invites with existing roles (201 code, e-mail, audit, event); the code joins the tenant once', async () => {
    const t = await newTenant();
    const create = await invoke('POST', '/api/roles', { token: t.owner, body: { name: 'Auditor', tenantId: t.id } });
    expect(create).toAnswer(201);
    const email = `Invitee-${tag()}@Example.com`;
    const res = await invoke('POST', `/api/tenants/${t.slug}/invitations`, {
      token: t.owner,
      body: { email, roles: ['tenantmember', 'auditor'] },
    });
    expect(res).toAnswer(201);
    const { invitationCode, expiresAt } = res.json.result;
    expect(invitationCode).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);
    const mail = testMailer.outbox.at(-1)!;
    expect(mail.to).toEqual([email.toLowerCase()]);
    expect(mail.text).toContain(`Invitation code: ${invitationCode}`);
    expect(await get(identityKeys.invitationCode(invitationCode))).toBeUndefined(); // stored by hash only
    expect(await get(identityKeys.invitationCode(sha256(invitationCode)))).toMatchObject({ tenantId: t.id });

    const joined = await join(invitationCode, email.toLowerCase());
    expect(joined.ok).toBe(true);
    const roles = await invoke('GET', '/api/roles', { token: t.owner });
    const counts = Object.fromEntries(
      roles.json.result.items.map((r: { name: string; userCount: number }) => [r.name, r.userCount]),
    );
    expect(counts).toMatchObject({ TenantMember: 1, Auditor: 1, TenantOwner: 0 });
    expect((await invoke('GET', `/api/tenants/${t.slug}`, { token: t.owner })).json.result.seatCount).toBe(1);
    expect((await join(invitationCode, `again-${tag()}@example.com`)).ok).toBe(false);
    const invitationAudit = (
      await listNewestFirst<{ entityType: string; action: string; tenantId: string }>(
        keys.platformCollection('AUDIT'),
        { page: 1, pageSize: 200, where: { entityType: 'Invitation', tenantId: t.id } },
      )
    ).items;
    expect(invitationAudit.map((a) => a.action)).toEqual(['redeem', 'create']);
    expect((await events('membership.invited')).some((e) => JSON.parse(e.data).tenantId === t.id)).toBe(true);
    expect((await events('membership.joined')).some((e) => JSON.parse(e.data).tenantId === t.id)).toBe(true);
  });

  it('refuses unknown roles (400 naming them), SystemAdmin (403 owner, 400 admin), and writes nothing', async () => {
    const t = await newTenant();
    const before = await countOf(keys.tenantCollection(t.id, 'INVITATION'));
    const unknown = await invoke('POST', `/api/tenants/${t.slug}/invitations`, {
      token: t.owner,
      body: { email: 'x@example.com', roles: ['TenantMember', 'Ghost'] },
    });
    expect(unknown).toAnswer(400, 'VALIDATION_ERROR');
    expect(JSON.stringify(unknown.json.error.details)).toContain('Ghost');
    const saOwner = await invoke('POST', `/api/tenants/${t.slug}/invitations`, {
      token: t.owner,
      body: { email: 'x@example.com', roles: ['SystemAdmin'] },
    });
    expect(saOwner).toAnswer(403);
    const saAdmin = await invoke('POST', `/api/tenants/${t.slug}/invitations`, {
      token: admin,
      body: { email: 'x@example.com', roles: ['SystemAdmin'] },
    });
    expect(saAdmin).toAnswer(400);
    for (const body of [
      { email: 'x@example.com', roles: [] },
      { email: 'bad', roles: ['TenantMember'] },
      { email: 'x@example.com' },
    ]) {
      expect(await invoke('POST', `/api/tenants/${t.slug}/invitations`, { token: t.owner, body })).toAnswer(400);
    }
    expect(await countOf(keys.tenantCollection(t.id, 'INVITATION'))).toBe(before);
  });

  it('refuses another tenant (404), a member (403), a taken e-mail (409), a full or cancelled tenant (409)', async () => {
    const a = await newTenant({ maxSeats: 1 });
    const b = await newTenant();
    const body = { email: `p-${tag()}@example.com`, roles: ['TenantMember'] };
    expect(await invoke('POST', `/api/tenants/${a.slug}/invitations`, { token: b.owner, body })).toAnswer(404);
    expect(await invoke('POST', `/api/tenants/${a.slug}/invitations`, { token: a.member, body })).toAnswer(403);
    const first = await invoke('POST', `/api/tenants/${a.slug}/invitations`, { token: a.owner, body });
    expect(first).toAnswer(201);
    expect((await join(first.json.result.invitationCode, body.email)).ok).toBe(true);
    const taken = await invoke('POST', `/api/tenants/${b.slug}/invitations`, { token: b.owner, body });
    expect(taken).toAnswer(409);
    const full = await invoke('POST', `/api/tenants/${a.slug}/invitations`, {
      token: a.owner,
      body: { ...body, email: `q-${tag()}@example.com` },
    });
    expect(full).toAnswer(409, 'SEAT_LIMIT_REACHED');
    await invoke('PUT', `/api/tenants/${b.slug}/status`, { token: admin, body: { newStatus: 'CANCELLED' } });
    const cancelled = await invoke('POST', `/api/tenants/${b.slug}/invitations`, {
      token: admin,
      body: { ...body, email: `r-${tag()}@example.com` },
    });
    expect(cancelled).toAnswer(409);
  });

  it('lets a TenantOwner give TenantOwner, but not a custom role holding users:write (403)', async () => {
    const t = await newTenant();
    const ok = await invoke('POST', `/api/tenants/${t.slug}/invitations`, {
      token: t.owner,
      body: { email: `co-${tag()}@example.com`, roles: ['TenantOwner'] },
    });
    expect(ok).toAnswer(201);
    const manager = await tokenFor({ tenantId: t.id, roles: ['Manager'], permissions: ['users:write', 'users:read'] });
    const res = await invoke('POST', `/api/tenants/${t.slug}/invitations`, {
      token: manager,
      body: { email: `co-${tag()}@example.com`, roles: ['TenantOwner'] },
    });
    expect(res).toAnswer(403);
  });

  it('admits exactly maxSeats of many invitees redeeming in parallel; the rest get the seat condition', async () => {
    const t = await newTenant({ maxSeats: 3 });
    const invitees: { email: string; code: string }[] = [];
    for (let i = 0; i < 8; i++) {
      const email = `race-${i}-${tag()}@example.com`;
      const res = await invoke('POST', `/api/tenants/${t.slug}/invitations`, {
        token: admin,
        body: { email, roles: ['TenantMember'] },
      });
      expect(res).toAnswer(201);
      invitees.push({ email, code: lastCode() });
    }
    const results = await Promise.all(invitees.map((i) => join(i.code, i.email)));
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    // The redeem's seat item answers for itself: no free seat left.
    for (const r of results.filter((x) => !x.ok))
      expect(r).toMatchObject({ reason: 'tx', error: { status: 409, code: 'SEAT_LIMIT_REACHED' } });
    const detail = await invoke('GET', `/api/tenants/${t.slug}`, { token: admin });
    expect(detail.json.result.seatCount).toBe(3);
    expect(await countOf(keys.userCollection(t.id))).toBe(3);
    const roles = await invoke('GET', '/api/roles', { token: admin, query: { tenantId: t.id } });
    expect(roles.json.result.items.find((r: { name: string }) => r.name === 'TenantMember').userCount).toBe(3);
  });
});
