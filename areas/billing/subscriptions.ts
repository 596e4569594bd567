import { requireTenant, tenantNames, trialWrite } from '#areas/identity/for-billing.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, orConflict, putNew, updateItem, type TransactItem } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get, getOr404 } from '#shared/data/read.ts';
import { notFound, validationError } from '#shared/http/errors.ts';
import { notTrialing, subscriptionExists } from './errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { paymentGateway } from './gateway.ts';
import { addDays } from './periods.ts';
import { planFor } from './plans.ts';
import {
  billingKeys,
  pointerItem,
  subscriptionItem,
  toAdminSubscription,
  toCurrentSubscription,
  type CurrentPointer,
  type SubscriptionRecord,
} from './records.ts';
import { PaymentProvider, PENDING, SubscriptionStatus } from './vocabulary.ts';

export interface CreateInput {
  planId: string;
  billingPeriod: number;
  trialDays?: number | null;
}

/**
 * Starts a subscription: the provider's checkout is opened first, then the subscription and the
 * tenant's `current` pointer are written together. The pointer's condition keeps one live
 * subscription per tenant; an unpaid one is replaced (its checkout is closed at the provider first,
 * so it can no longer be paid; when it was paid meanwhile, this is 409).
 */
export async function createSubscription(tenantId: string, input: CreateInput, actor: Principal) {
  const plan = await planFor(input.planId, input.billingPeriod);
  const trialDays = input.trialDays ?? 0;
  if (trialDays > 0) {
    if (!plan.isTrialEligible)
      throw validationError([{ path: 'body.trialDays', message: `Plan ${plan.code} has no trial` }]);
    if (trialDays > plan.trialDays)
      throw validationError([
        { path: 'body.trialDays', message: `At most ${plan.trialDays} days for plan ${plan.code}` },
      ]);
    if (await get(billingKeys.trialUsed(tenantId), { consistent: true }))
      throw validationError([{ path: 'body.trialDays', message: 'This tenant has had its trial already' }]);
  }
  const replaced = await unpaidToReplace(tenantId);
  const gateway = paymentGateway(PaymentProvider.A);
  if (replaced && !(await gateway.expireCheckout(replaced.checkoutSessionId))) throw subscriptionExists();

  const id = crypto.randomUUID();
  const checkout = await gateway.createCheckout({
    tenantId,
    kind: 'subscription',
    reference: id,
    amountMinor: trialDays > 0 ? 0 : plan.priceMinor,
    recurringMinor: plan.priceMinor,
    currency: plan.currency,
    description: `${plan.name} (${plan.billingPeriod === 2 ? 'yearly' : 'monthly'})${trialDays > 0 ? `, ${trialDays}-day trial` : ''}`,
  });
  const at = new Date().toISOString();
  const sub: SubscriptionRecord = {
    id,
    tenantId,
    planId: plan.id,
    planName: plan.name,
    planType: plan.type,
    billingPeriod: plan.billingPeriod,
    priceMinor: plan.priceMinor,
    currency: plan.currency,
    status: SubscriptionStatus.Inactive,
    awaitingCheckout: true,
    provider: PaymentProvider.A,
    checkoutSessionId: checkout.sessionId,
    checkoutExpiresAt: checkout.expiresAt,
    trialDays,
    startDate: null,
    renewalDate: null,
    trialExpiresAt: null,
    createdAt: at,
    updatedAt: at,
  };
  const pointer: TransactItem = {
    Put: {
      TableName: config.tableName,
      Item: pointerItem(tenantId, {
        subscriptionId: id,
        state: 'pending',
        checkoutExpiresAt: checkout.expiresAt,
        updatedAt: at,
      }),
      ConditionExpression: replaced
        ? '#state = :pending AND subscriptionId = :old'
        : 'attribute_not_exists(pk) OR #state = :cancelled',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: replaced
        ? { ':pending': 'pending', ':old': replaced.id }
        : { ':cancelled': 'cancelled' },
    },
  };
  try {
    await commitChange(
      [
        putNew(subscriptionItem(sub)),
        orConflict(pointer, subscriptionExists()),
        replaced
          ? orConflict(
              updateItem(
                billingKeys.subscription(tenantId, replaced.id),
                { status: SubscriptionStatus.Cancelled, awaitingCheckout: false, cancelledAt: at, updatedAt: at },
                { condition: 'awaitingCheckout = :true', values: { ':true': true } },
              ),
              subscriptionExists(),
            )
          : null,
      ],
      {
        tenantId,
        actor,
        entityType: 'Subscription',
        entityId: id,
        action: 'Created',
        changes: { planId: plan.id, billingPeriod: plan.billingPeriod, trialDays },
      },
      { now: at },
    );
  } catch (err) {
    // Nothing may point at the new checkout when the write fails: it is closed so it can never be paid.
    await gateway.expireCheckout(checkout.sessionId).catch(() => false);
    throw err;
  }
  return { subscriptionId: id, checkoutUrl: checkout.checkoutUrl, status: PENDING };
}

/**
 * The tenant's subscription that is still waiting for its first checkout: a new request replaces
 * it (the customer changed their mind before paying). A live one is 409.
 */
async function unpaidToReplace(tenantId: string): Promise<SubscriptionRecord | null> {
  const pointer = await get<CurrentPointer>(billingKeys.current(tenantId), { consistent: true });
  if (!pointer || pointer.state === 'cancelled') return null;
  const sub =
    pointer.state === 'pending'
      ? await get<SubscriptionRecord>(billingKeys.subscription(tenantId, pointer.subscriptionId), { consistent: true })
      : undefined;
  if (!sub?.awaitingCheckout) throw subscriptionExists();
  return sub;
}

/** The subscription the tenant's pointer names (404 when it never had one). */
async function currentSubscriptionItem(tenantId: string): Promise<SubscriptionRecord> {
  const pointer = await get<CurrentPointer>(billingKeys.current(tenantId), { consistent: true });
  if (!pointer) throw notFound('Subscription');
  return getOr404<SubscriptionRecord>(billingKeys.subscription(tenantId, pointer.subscriptionId), 'Subscription', {
    consistent: true,
  });
}

export const currentSubscription = async (tenantId: string) =>
  toCurrentSubscription(await currentSubscriptionItem(tenantId));

/** Every tenant's subscriptions from the platform-wide index, newest first, with tenant names. */
export async function adminSubscriptions(q: { page: number; pageSize: number; statusFilter?: number }) {
  const filtered = q.statusFilter !== undefined;
  const all = await queryItems<SubscriptionRecord>({
    TableName: config.tableName,
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: {
      ':pk': billingKeys.allSubscriptions(),
      ...(filtered ? { ':s': q.statusFilter } : {}),
    },
    ...(filtered ? { FilterExpression: '#status = :s', ExpressionAttributeNames: { '#status': 'status' } } : {}),
    ScanIndexForward: false,
  });
  const start = (q.page - 1) * q.pageSize;
  const page = all.slice(start, start + q.pageSize);
  const names = await tenantNames([...new Set(page.map((s) => s.tenantId))]);
  return toPage(
    page.map((s) => toAdminSubscription(s, names.get(s.tenantId) ?? '')),
    all.length,
    q.page,
    q.pageSize,
  );
}

/**
 * Moves a trialing subscription's trial end (and first charge) later; the tenant's trial date
 * follows. Any other subscription is 409 NOT_TRIALING, checked on the record read and again as the
 * write's condition (a renewal arriving meanwhile).
 */
export async function extendTrial(tenantId: string, days: number, actor: Principal) {
  await requireTenant(tenantId);
  const sub = await currentSubscriptionItem(tenantId);
  if (Number(sub.status) !== SubscriptionStatus.Trialing || !sub.trialExpiresAt) throw notTrialing();
  const from = sub.trialExpiresAt;
  const until = addDays(from, days);
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(
        updateItem(
          billingKeys.subscription(tenantId, sub.id),
          { trialExpiresAt: until, renewalDate: until, updatedAt: now },
          {
            condition: '#status = :trialing AND trialExpiresAt = :from',
            names: { '#status': 'status' },
            values: { ':trialing': SubscriptionStatus.Trialing, ':from': from },
          },
        ),
        notTrialing(),
      ),
      trialWrite(tenantId, until),
    ],
    {
      tenantId,
      actor,
      entityType: 'Subscription',
      entityId: sub.id,
      action: 'TrialExtended',
      changes: { additionalDays: days, trialExpiresAt: until },
    },
    { now },
  );
  return toCurrentSubscription({ ...sub, trialExpiresAt: until, renewalDate: until });
}
