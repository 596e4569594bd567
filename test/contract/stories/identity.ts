import { expect } from 'vitest';
import { adminWithTenant, ok, type Story } from '../story.ts';

/** Sign-in, a tenant created and listed, a supplier created and read by its id alone, the tenant's users. */
export const story: Story = async (ctx) => {
  const { client, adminEmail, adminPassword, tag } = ctx;
  const session = ok(
    'sign-in',
    await client.POST('/api/auth/login', { body: { email: adminEmail, password: adminPassword } }),
  );
  expect(session.result.user.roles).toContain('SystemAdmin');
  // This story signs in itself (the sign-in is what it shows); the others share one session.
  const { admin, tenant } = await adminWithTenant(
    { ...ctx, adminSession: async () => session.result.accessToken },
    'typed',
  );
  const slug = `typed-${tag}`;
  expect(tenant.slug).toBe(slug);
  const tenants = ok('tenant list', await admin.GET('/api/tenants', { params: { query: { search: slug } } }));
  expect(tenants.result.items.map((t) => t.id)).toContain(tenant.id);

  const supplier = ok(
    'supplier create',
    await admin.POST('/api/suppliers', { body: { name: `Typed supplier ${tag}`, tenantId: tenant.id } }),
  );
  const read = ok(
    'supplier read',
    await admin.GET('/api/suppliers/{supplierId}', { params: { path: { supplierId: supplier.result.id } } }),
  );
  expect(read.result).toMatchObject({ id: supplier.result.id, tenantId: tenant.id });

  const users = ok('user list', await admin.GET('/api/users', { params: { query: { tenantId: tenant.id } } }));
  expect(users.result.totalCount).toBe(0);
};
