import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { keys } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

const tenantA = crypto.randomUUID();
const tenantB = crypto.randomUUID();
let ownerA: string;
let ownerB: string;
let memberA: string;
let admin: string;

beforeAll(async () => {
  for (const id of [tenantA, tenantB]) {
    await ddb().send(new PutCommand({ TableName: config.tableName, Item: { ...keys.platformItem('TENANT', id), id } }));
  }
  ownerA = await tokenFor({ tenantId: tenantA });
  ownerB = await tokenFor({ tenantId: tenantB });
  memberA = await tokenFor({ tenantId: tenantA, role: 'TenantMember' });
  admin = await tokenFor({ role: 'SystemAdmin' });
});

const supplier = (name: string, tenantId = tenantA) => ({
  name,
  contactPerson: 'Ann Lee',
  email: 'ANN@Example.com ',
  tenantId,
});

describe('suppliers', () => {
  it('creates a supplier scoped to the caller tenant and reads it back', async () => {
    const res = await invoke('POST', '/api/suppliers', { token: ownerA, body: supplier('Acme Parts') });
    expect(res).toAnswer(201);
    expect(res.json.success).toBe(true);
    expect(res.json.result).toMatchObject({
      name: 'Acme Parts',
      email: 'ann@example.com',
      tenantId: tenantA,
      isVendor: false,
      phone: null,
    });
    expect(res.json.result.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.json.result.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const got = await invoke('GET', `/api/suppliers/${res.json.result.id}`, { token: memberA });
    expect(got).toAnswer(200);
    expect(got.json.result).toEqual(res.json.result);
  });

  it('ignores fields the route does not name (no mass assignment)', async () => {
    const res = await invoke('POST', '/api/suppliers', {
      token: ownerA,
      body: {
        ...supplier('Sneaky'),
        id: '00000000-0000-4000-8000-000000000000',
        createdAt: '2000-01-01T00:00:00.000Z',
        pk: 'x',
      },
    });
    expect(res).toAnswer(201);
    expect(res.json.result.id).not.toBe('00000000-0000-4000-8000-000000000000');
    expect(res.json.result.createdAt).not.toBe('2000-01-01T00:00:00.000Z');
  });

  it('lists newest first with exact counts and stable pages', async () => {
    const tenant = crypto.randomUUID();
    await ddb().send(
      new PutCommand({ TableName: config.tableName, Item: { ...keys.platformItem('TENANT', tenant), id: tenant } }),
    );
    const owner = await tokenFor({ tenantId: tenant });
    for (let i = 0; i < 7; i++) {
      const r = await invoke('POST', '/api/suppliers', { token: owner, body: supplier(`Supplier ${i}`, tenant) });
      expect(r).toAnswer(201);
    }
    const first = await invoke('GET', '/api/suppliers?page=1&pageSize=3', { token: owner });
    expect(first).toAnswer(200);
    expect(first.json.result).toMatchObject({ totalCount: 7, totalPages: 3, page: 1, pageSize: 3 });
    expect(first.json.result.items.map((s: { name: string }) => s.name)).toEqual([
      'Supplier 6',
      'Supplier 5',
      'Supplier 4',
    ]);
    const last = await invoke('GET', '/api/suppliers?page=3&pageSize=3', { token: owner });
    expect(last.json.result.items.map((s: { name: string }) => s.name)).toEqual(['Supplier 0']);
    const beyond = await invoke('GET', '/api/suppliers?page=9&pageSize=3', { token: owner });
    expect(beyond.json.result).toMatchObject({ items: [], totalCount: 7, page: 9 });

    const search = await invoke('GET', '/api/suppliers', { token: owner, query: { search: 'SUPPLIER 3' } });
    expect(search.json.result).toMatchObject({ totalCount: 1, totalPages: 1 });
    expect(search.json.result.items[0].name).toBe('Supplier 3');
  });

  it('rejects bad paging and ids with VALIDATION_ERROR details', async () => {
    for (const q of ['page=0', 'pageSize=1000', 'pageSize=0', 'page=abc', 'page=1.5']) {
      const res = await invoke('GET', `/api/suppliers?${q}`, { token: ownerA });
      expect(res, q).toAnswer(400, 'VALIDATION_ERROR');
      expect(res.json.error.details[0].path).toMatch(/^query\.page/);
    }
    const badId = await invoke('GET', '/api/suppliers/not-a-uuid', { token: ownerA });
    expect(badId).toAnswer(400);
    expect(badId.json.error.details).toEqual([{ path: 'params.supplierId', message: 'Invalid UUID' }]);
  });

  it('rejects malformed JSON, non-object JSON and wrong content types, writing nothing', async () => {
    const before = await invoke('GET', '/api/suppliers', { token: ownerA });
    const malformed = await invoke('POST', '/api/suppliers', { token: ownerA, rawBody: '{"name": ' });
    expect(malformed).toAnswer(400, 'INVALID_JSON');
    const array = await invoke('POST', '/api/suppliers', { token: ownerA, rawBody: '[1,2]' });
    expect(array.json.error.code).toBe('INVALID_JSON');
    const text = await invoke('POST', '/api/suppliers', {
      token: ownerA,
      rawBody: 'name=x',
      contentType: 'text/plain',
    });
    expect(text).toAnswer(415, 'UNSUPPORTED_MEDIA_TYPE');
    const missing = await invoke('POST', '/api/suppliers', { token: ownerA, body: { tenantId: tenantA } });
    expect(missing).toAnswer(400);
    expect(missing.json.error.details).toEqual([{ path: 'body.name', message: expect.any(String) }]);
    const wrongType = await invoke('POST', '/api/suppliers', { token: ownerA, body: { name: 42, tenantId: tenantA } });
    expect(wrongType.json.error.code).toBe('VALIDATION_ERROR');
    const tooLong = await invoke('POST', '/api/suppliers', { token: ownerA, body: supplier('x'.repeat(201)) });
    expect(tooLong.json.error.code).toBe('VALIDATION_ERROR');
    const huge = await invoke('POST', '/api/suppliers', {
      token: ownerA,
      body: { ...supplier('big'), pad: 'x'.repeat(300_000) },
    });
    expect(huge).toAnswer(413, 'PAYLOAD_TOO_LARGE');
    const after = await invoke('GET', '/api/suppliers', { token: ownerA });
    expect(after.json.result.totalCount).toBe(before.json.result.totalCount);
  });

  it('keeps tenants apart: foreign tenantId is 403, foreign id is 404', async () => {
    const created = await invoke('POST', '/api/suppliers', { token: ownerA, body: supplier('Private') });
    const foreignList = await invoke('GET', '/api/suppliers', { token: ownerB, query: { tenantId: tenantA } });
    expect(foreignList).toAnswer(403, 'FORBIDDEN');
    const foreignCreate = await invoke('POST', '/api/suppliers', { token: ownerB, body: supplier('Planted', tenantA) });
    expect(foreignCreate).toAnswer(403);
    const foreignGet = await invoke('GET', `/api/suppliers/${created.json.result.id}`, { token: ownerB });
    expect(foreignGet).toAnswer(404, 'NOT_FOUND');
    const ownList = await invoke('GET', '/api/suppliers', { token: ownerB });
    expect(ownList.json.result.items.some((s: { id: string }) => s.id === created.json.result.id)).toBe(false);
  });

  it('lets a member read but not write, and a SystemAdmin act on a named tenant', async () => {
    const denied = await invoke('POST', '/api/suppliers', { token: memberA, body: supplier('Nope') });
    expect(denied).toAnswer(403);
    const adminList = await invoke('GET', '/api/suppliers', { token: admin, query: { tenantId: tenantA } });
    expect(adminList).toAnswer(200);
    expect(adminList.json.result.totalCount).toBeGreaterThan(0);
    const adminNoTenant = await invoke('GET', '/api/suppliers', { token: admin });
    expect(adminNoTenant).toAnswer(400);
    const unknownTenant = await invoke('GET', '/api/suppliers', {
      token: admin,
      query: { tenantId: crypto.randomUUID() },
    });
    expect(unknownTenant).toAnswer(404);
  });

  it('answers 409 and changes nothing when the new id is taken (a failed condition is never a success)', async () => {
    const taken = (await invoke('POST', '/api/suppliers', { token: ownerA, body: supplier('First') })).json.result;
    const count = async () =>
      (await invoke('GET', '/api/suppliers', { token: ownerA, query: { pageSize: 1 } })).json.result.totalCount;
    const before = await count();
    const uuid = vi.spyOn(crypto, 'randomUUID').mockReturnValue(taken.id);
    try {
      const again = await invoke('POST', '/api/suppliers', { token: ownerA, body: supplier('Second') });
      expect(again).toAnswer(409, 'CONFLICT');
    } finally {
      uuid.mockRestore();
    }
    expect(await count()).toBe(before);
    expect((await invoke('GET', `/api/suppliers/${taken.id}`, { token: ownerA })).json.result.name).toBe('First');
  });

  it('requires a valid bearer token', async () => {
    expect(await invoke('GET', '/api/suppliers')).toAnswer(401);
    const tampered = ownerA.slice(0, -4) + (ownerA.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    const res = await invoke('GET', '/api/suppliers', { token: tampered });
    expect(res).toAnswer(401);
    expect(res.json).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message: 'Invalid or expired token' } });
  });
});

describe('product-services', () => {
  it('enforces a unique code per tenant with a transaction, even under concurrency', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        invoke('POST', '/api/product-services', {
          token: ownerA,
          body: { name: `Widget ${i}`, code: 'WID-1', tenantId: tenantA },
        }),
      ),
    );
    expect(attempts.filter((r) => r.status === 201)).toHaveLength(1);
    expect(attempts.filter((r) => r.status === 409).every((r) => r.json.error.code === 'CONFLICT')).toBe(true);
    expect(attempts.filter((r) => r.status === 409)).toHaveLength(4);
    const list = await invoke('GET', '/api/product-services', { token: ownerA, query: { search: 'wid-1' } });
    expect(list.json.result.totalCount).toBe(1);
    const otherTenant = await invoke('POST', '/api/product-services', {
      token: ownerB,
      body: { name: 'Widget', code: 'wid-1', tenantId: tenantB },
    });
    expect(otherTenant).toAnswer(201);
  });

  it('keeps the maintained count exact under parallel creates', async () => {
    const tenant = crypto.randomUUID();
    await ddb().send(
      new PutCommand({ TableName: config.tableName, Item: { ...keys.platformItem('TENANT', tenant), id: tenant } }),
    );
    const owner = await tokenFor({ tenantId: tenant });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        invoke('POST', '/api/product-services', { token: owner, body: { name: `P${i}`, tenantId: tenant } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    const list = await invoke('GET', '/api/product-services', { token: owner, query: { pageSize: 100 } });
    expect(list.json.result.totalCount).toBe(12);
    expect(list.json.result.items).toHaveLength(12);
  });
});
