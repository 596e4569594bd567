import { expect } from 'vitest';
import { adminWithTenant, ok, type Story } from '../story.ts';

/** A tenant's payment methods, a subscription start, a payment and the administrator's subscription list. */
export const story: Story = async (ctx) => {
  const { admin, tenant } = await adminWithTenant(ctx, 'pay');
  const plans = ok('plans', await admin.GET('/api/subscriptions/plans')).result;
  const starter = plans.find((p) => p.code === 'starter')!;
  expect(starter.billingPeriod).toBe(1);
  const method = ok(
    'method',
    await admin.POST('/api/payment-methods', { body: { provider: 1, token: 'tok_visa', tenantId: tenant.id } }),
  ).result;
  expect(method).toMatchObject({ isDefault: true, lastFourDigits: '4242' });
  const sub = ok(
    'subscription',
    await admin.POST('/api/subscriptions', { body: { planId: starter.id, billingPeriod: 1, tenantId: tenant.id } }),
  ).result;
  expect(sub.status).toBe('PENDING');
  const payment = ok(
    'payment',
    await admin.POST('/api/payments/process', {
      body: { subscriptionId: sub.subscriptionId, amount: 12.5, currency: 'EUR', tenantId: tenant.id },
    }),
  ).result;
  expect(payment.checkoutUrl).toContain('/_local/checkout/');
  const history = ok(
    'history',
    await admin.GET('/api/payments/history', { params: { query: { tenantId: tenant.id, statusFilter: 0 } } }),
  ).result;
  expect(history.items.map((p) => p.amount)).toEqual([12.5]);
  const all = ok(
    'admin list',
    await admin.GET('/api/admin/billing/subscriptions', { params: { query: { statusFilter: 0, pageSize: 100 } } }),
  ).result;
  expect(all.items.some((s) => s.tenantId === tenant.id)).toBe(true);
};
