import { safeParse } from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { tenantChange } from '#areas/identity/users/model.ts';
import { redeemWrites, seatItem } from '#areas/identity/invitations.ts';
import { featuresOf, toTenant, toTenantDetail, toTenantSummary } from '#areas/identity/records.ts';
import { statusMove, statusNameOf } from '#areas/identity/tenant-status.ts';
import { planDefaults, slugCandidates, slugify } from '#areas/identity/tenant-model.ts';
import { SLUG_PATTERN, TENANT_STATUS_CODES } from '#areas/identity/vocabulary.ts';
import { tenantRoutes } from '#areas/identity/routes/tenants.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { userRoutes, userUpdateOrResetBody } from '#areas/identity/routes/users.ts';

describe('slugs', () => {
  it('derives lower-case ASCII slugs from names', () => {
    // Prepare / Act / Assess in one table.
    const cases: [string, string][] = [
      ['Acme', 'acme'],
      ['Zürich Widgets & Co.', 'zurich-widgets-co'],
      ['  --Hello   World--  ', 'hello-world'],
      ['Crème brûlée 2026', 'creme-brulee-2026'],
      ['X', 'x-tenant'],
      ['!!', 'tenant'],
      ['東京', 'tenant'],
      ['a'.repeat(80), 'a'.repeat(50)],
      [`${'a'.repeat(49)} b`, 'a'.repeat(49)],
    ];
    for (const [name, slug] of cases) {
      expect(slugify(name), name).toBe(slug);
      expect(SLUG_PATTERN.test(slugify(name)), name).toBe(true);
    }
  });

  it('offers the base, then numbered, then random candidates, all valid', () => {
    const candidates = slugCandidates('acme');
    expect(candidates.slice(0, 4)).toEqual(['acme', 'acme-2', 'acme-3', 'acme-4']);
    expect(candidates).toHaveLength(13);
    expect(new Set(candidates).size).toBe(13);
    expect(candidates.every((c) => SLUG_PATTERN.test(c) && c.length <= 63)).toBe(true);
  });

  it('accepts 3-63 lowercase letters, digits and inner hyphens only', () => {
    for (const ok of ['abc', 'a-b', 'a--b', '123', `a${'b'.repeat(61)}c`]) expect(SLUG_PATTERN.test(ok), ok).toBe(true);
    for (const bad of ['ab', '-ab', 'ab-', 'Abc', 'a_b', 'a b', 'a.b', `a${'b'.repeat(62)}c`, ''])
      expect(SLUG_PATTERN.test(bad), bad).toBe(false);
  });
});

describe('tenant model', () => {
  it('names the numeric statuses and allows every move but out of CANCELLED', () => {
    expect(TENANT_STATUS_CODES).toEqual({ PENDING: 0, ACTIVE: 1, SUSPENDED: 2, CANCELLED: 3 });
    expect([0, 1, 2, 3].map(statusNameOf)).toEqual(['PENDING', 'ACTIVE', 'SUSPENDED', 'CANCELLED']);
    const { PENDING, ACTIVE, SUSPENDED, CANCELLED } = TENANT_STATUS_CODES;
    for (const from of [PENDING, ACTIVE, SUSPENDED]) {
      for (const to of [ACTIVE, SUSPENDED, CANCELLED]) expect(statusMove(from, to)).toBe(from === to ? 'same' : 'ok');
    }
    expect(statusMove(CANCELLED, ACTIVE)).toBe('final');
    expect(statusMove(CANCELLED, SUSPENDED)).toBe('final');
    expect(statusMove(CANCELLED, CANCELLED)).toBe('same');
  });

  it('derives features from the limits and plan defaults from the reference plans', () => {
    expect(featuresOf({ maxAgents: 0, maxKnowledgeBases: 0 })).toEqual({ aiAgents: false, knowledgeBase: false });
    expect(featuresOf({ maxAgents: 1, maxKnowledgeBases: 0 })).toEqual({ aiAgents: true, knowledgeBase: false });
    expect(planDefaults(1)).toEqual({
      maxAgents: 1,
      maxKnowledgeBases: 1,
      maxSeats: 5,
      maxTokensPerMonth: 100_000,
      trialDays: 14,
    });
    expect(planDefaults(2).maxSeats).toBe(25);
    expect(planDefaults(3).maxSeats).toBe(100);
  });

  it('maps items to the summary and detail shapes of the spec', () => {
    const item = {
      pk: 'PLATFORM#TENANT',
      sk: 'id-1',
      id: 'id-1',
      slug: 'acme',
      name: 'Acme',
      email: 'a@acme.test',
      phone: null,
      planType: 2,
      status: 1,
      trialExpiresAt: null,
      maxAgents: 3,
      maxKnowledgeBases: 0,
      maxSeats: 10,
      seatCount: 4,
      ownerGuard: 7,
      searchText: 'acme acme',
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    const tenant = toTenant(item);
    expect(Object.keys(toTenantSummary(tenant)).sort()).toEqual(
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
    expect(toTenantDetail(tenant)).toMatchObject({
      isActive: true,
      seatCount: 4,
      features: { aiAgents: true, knowledgeBase: false },
    });
    expect(toTenantDetail(tenant)).not.toHaveProperty('ownerGuard');
    expect(toTenantSummary(toTenant({ ...item, status: 0 })).isActive).toBe(false);
  });
});

describe('route schemas', () => {
  const route = (id: string): RouteDef =>
    ([...tenantRoutes, ...userRoutes] as readonly RouteDef[]).find((r) => r.id === id)!;

  it('reads statusFilter and newStatus in any case and refuses other strings', () => {
    const list = route('tenants.list').query!;
    expect(safeParse(list as never, { statusFilter: 'suspended' })).toMatchObject({
      success: true,
      data: { statusFilter: 'SUSPENDED', page: 1, pageSize: 20 },
    });
    expect(safeParse(list as never, { planType: '3' })).toMatchObject({ success: true, data: { planType: 3 } });
    for (const q of [{ statusFilter: 'BLOCKED' }, { planType: '0' }, { planType: '4' }])
      expect(safeParse(list as never, q).success).toBe(false);
    const status = route('tenants.status').body!;
    expect(safeParse(status as never, { newStatus: 'Cancelled' })).toMatchObject({
      success: true,
      data: { newStatus: 'CANCELLED' },
    });
    expect(safeParse(status as never, { newStatus: 'PENDING' }).success).toBe(false);
  });

  it('tells a password reset from an update by the body, with the issues of the kind it chose', () => {
    expect(safeParse(userUpdateOrResetBody(), { newPassword: 'Fresh-Start-42' })).toMatchObject({
      success: true,
      data: { kind: 'reset' },
    });
    expect(safeParse(userUpdateOrResetBody(), 'text')).toMatchObject({
      success: true,
      data: { kind: 'not-an-object' },
    });
    const update = safeParse(userUpdateOrResetBody(), {
      firstName: 'A',
      lastName: 'B',
      roles: ['TenantMember'],
      isActive: true,
    });
    expect(update).toMatchObject({
      success: true,
      data: { kind: 'update', update: { firstName: 'A', roles: ['TenantMember'] } },
    });
    const weak = safeParse(userUpdateOrResetBody(), { newPassword: 'weak' });
    expect(weak.success).toBe(false);
    expect(weak.error!.issues.every((i) => i.path.join('.') === 'newPassword')).toBe(true);
    const partial = safeParse(userUpdateOrResetBody(), { firstName: 'A' });
    expect(partial.error!.issues.map((i) => i.path.join('.')).sort()).toEqual(['isActive', 'lastName', 'roles']);
  });

  it('accepts the user id with the :password-reset suffix on PUT /api/users/{userId} only', () => {
    const id = crypto.randomUUID();
    expect(safeParse(route('users.update').params as never, { userId: `${id}:password-reset` }).success).toBe(true);
    expect(safeParse(route('users.update').params as never, { userId: `${id}:other` }).success).toBe(false);
    expect(safeParse(route('users.get').params as never, { userId: `${id}:password-reset` }).success).toBe(false);
    expect(route('users.passwordReset').aliases).toEqual(['/api/users/{userId}:password-reset']);
  });

  it('names a permission or role on every route, and keeps owner-only routes away from members', () => {
    for (const r of [...tenantRoutes, ...userRoutes]) {
      expect(r.auth.kind).toBe('bearer');
      const auth = r.auth as { roles?: string[]; permission?: string };
      expect(auth.roles?.length || auth.permission, r.id).toBeTruthy();
    }
    // TenantMember holds only `:read` permissions, so these refuse it.
    for (const id of [
      'tenants.list',
      'tenants.update',
      'tenants.invite',
      'users.update',
      'users.delete',
      'users.passwordReset',
    ]) {
      expect((route(id).auth as { permission: string }).permission, id).toMatch(/:write$/);
    }
    for (const id of ['tenants.create', 'tenants.status'])
      expect(route(id).auth).toEqual({ kind: 'bearer', roles: ['SystemAdmin'] });
  });
});

describe('transaction items (offline)', () => {
  it('takes a seat only below maxSeats and frees one unconditionally', () => {
    expect(seatItem('t1', 1).Update).toMatchObject({
      UpdateExpression: 'ADD seatCount :by',
      ExpressionAttributeValues: { ':by': 1, ':zero': 0 },
    });
    expect(seatItem('t1', 1).Update!.ConditionExpression).toContain('seatCount < maxSeats');
    expect(seatItem('t1', -1).Update).toMatchObject({
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':by': -1 },
    });
  });

  it('guards owner removal on the value of the owner guard that was read', () => {
    expect(tenantChange('t1', {})).toBeNull();
    expect(tenantChange('t1', { guarded: true, guard: undefined })!.Update).toMatchObject({
      UpdateExpression: 'SET ownerGuard = :nextGuard',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(ownerGuard)',
      ExpressionAttributeValues: { ':nextGuard': 1 },
    });
    expect(tenantChange('t1', { freeSeat: true, guarded: true, guard: 4 })!.Update).toMatchObject({
      UpdateExpression: 'SET ownerGuard = :nextGuard ADD seatCount :minusOne',
      ConditionExpression: 'attribute_exists(pk) AND ownerGuard = :guard',
      ExpressionAttributeValues: { ':nextGuard': 5, ':guard': 4, ':minusOne': -1 },
    });
  });

  it('gives each conditional redeem item its own answer: invitation (and the counters of its roles) or seat', () => {
    const counter = { Update: { TableName: 't', Key: { pk: 'p', sk: 's' }, UpdateExpression: 'ADD #n :by' } };
    const writes = redeemWrites({
      tenantId: 't1',
      invitationId: 'i1',
      userId: 'u1',
      at: '2026-01-01T00:00:00.000Z',
      nowEpoch: 1,
      membership: [counter],
    });
    expect(writes[0]!.Update!.ConditionExpression).toBe('#status = :open AND expiresAtEpoch > :now');
    expect(writes[0]!.onConflict).toMatchObject({ status: 400, code: 'INVALID_INVITATION' });
    expect(writes[1]!.Update!.ConditionExpression).toContain('seatCount < maxSeats');
    expect(writes[1]!.onConflict).toMatchObject({ status: 409, code: 'SEAT_LIMIT_REACHED' });
    expect(writes[2]).toMatchObject({ ...counter, onConflict: { status: 400, code: 'INVALID_INVITATION' } });
  });
});
