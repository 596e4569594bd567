import { expect } from 'vitest';
import { makeClient, ok, type Story } from '../story.ts';

/** Sign-in, a tenant created and listed, a supplier created and read by its id alone, the tenant's users. */
export const story: Story = async ({ client, baseUrl, adminEmail, adminPassword, tag }) => {
  const session = ok(
    'sign-in',
    await client.POST('/api/auth/login', { body: { email: adminEmail, password: adminPassword } }),
  );
  expect(session.result.user.roles).toContain('SystemAdmin');
  const admin = makeClient(baseUrl, { authorization: `Bearer ${session.result.accessToken}` });

  const slug = `typed-${tag}`;
  const tenant = ok(
    'tenant create',
    await admin.POST('/api/tenants', {
      body: {
        slug,
        name: `Typed ${tag}`,
        email: `owner-${tag}@typed.example`,
        planType: 1,
        maxAgents: 1,
        maxKnowledgeBases: 1,
        maxSeats: 5,
      },
    }),
  );
  expect(tenant.result.slug).toBe(slug);
  const tenants = ok('tenant list', await admin.GET('/api/tenants', { params: { query: { search: slug } } }));
  expect(tenants.result.items.map((t) => t.id)).toContain(tenant.result.id);

  const supplier = ok(
    'supplier create',
    await admin.POST('/api/suppliers', { body: { name: `Typed supplier ${tag}`, tenantId: tenant.result.id } }),
  );
  const read = ok(
    'supplier read',
    await admin.GET('/api/suppliers/{supplierId}', { params: { path: { supplierId: supplier.result.id } } }),
  );
  expect(read.result).toMatchObject({ id: supplier.result.id, tenantId: tenant.result.id });

  const users = ok('user list', await admin.GET('/api/users', { params: { query: { tenantId: tenant.result.id } } }));
  expect(users.result.totalCount).toBe(0);
};
