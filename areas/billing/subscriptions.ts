import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '#shared/auth/access-token.ts';
import { getItem } from '#shared/data/collection.ts';
import { auditPut, countAudit } from '#shared/data/audit.ts';
import { commitChange, updateItem } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { transact, type TransactItem } from '#shared/data/transact.ts';
import { paymentGateway } from './gateway.ts';
import { toMajor } from './money.ts';
import {
  addDays,
  billingKeys,
  PaymentProvider,
  SubscriptionStatus,
  toCurrentSubscription,
  type Item,
} from './records.ts';
import { conflict, notFound, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { planFor } from './plans.ts';

const read = (key: { pk: string; sk: string }) => getItem<Item>(key, true);

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
export async function createSubscription(t: string, input: CreateInput, actor: Principal) {
  const plan = await planFor(input.planId, input.billingPeriod);
  const trialDays = input.trialDays ?? 0;
  if (trialDays > 0) {
    if (!plan.isTrialEligible)
      throw validationError([{ path: 'body.trialDays', message: `Plan ${plan.code} has no trial` }]);
    if (trialDays > plan.trialDays)
      throw validationError([
        { path: 'body.trialDays', message: `At most ${plan.trialDays} days for plan ${plan.code}` },
      ]);
    if (await read(billingKeys.trialUsed(t)))
      throw validationError([{ path: 'body.trialDays', message: 'This tenant has had its trial already' }]);
  }
  const now = new Date();
  const replaced = await unpaidToReplace(t);
  const gateway = await paymentGateway(PaymentProvider.A);
  if (replaced && !(await gateway.expireCheckout(String(replaced.checkoutSessionId))))
    throw conflict('The tenant already has a live subscription', 'SUBSCRIPTION_EXISTS');

  const id = crypto.randomUUID();
  const checkout = await gateway.createCheckout({
    tenantId: t,
    kind: 'subscription',
    reference: id,
    amountMinor: trialDays > 0 ? 0 : plan.priceMinor,
    recurringMinor: plan.priceMinor,
    currency: plan.currency,
    description: `${plan.name} (${plan.billingPeriod === 2 ? 'yearly' : 'monthly'})${trialDays > 0 ? `, ${trialDays}-day trial` : ''}`,
  });
  const at = now.toISOString();
  const item = {
    ...billingKeys.subscription(t, id),
    gsi2pk: keys.allSubscriptions(),
    gsi2sk: `${at}#${id}`,
    id,
    tenantId: t,
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
      Item: {
        ...billingKeys.current(t),
        subscriptionId: id,
        state: 'pending',
        checkoutExpiresAt: checkout.expiresAt,
        updatedAt: at,
      },
      ConditionExpression: replaced
        ? '#state = :pending AND subscriptionId = :old'
        : 'attribute_not_exists(pk) OR #state = :cancelled',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: replaced
        ? { ':pending': 'pending', ':old': replaced.id }
        : { ':cancelled': 'cancelled' },
    },
  };
  const cancelReplaced = replaced
    ? updateItem(
        billingKeys.subscription(t, String(replaced.id)),
        { status: SubscriptionStatus.Cancelled, awaitingCheckout: false, cancelledAt: at, updatedAt: at },
        {
          condition: 'awaitingCheckout = :true',
          values: { ':true': true },
        },
      )
    : null;
  // Nothing may point at the new checkout when the write fails: it is closed so it can never be paid.
  const closeCheckout = () => gateway.expireCheckout(checkout.sessionId).catch(() => false);
  const outcome = await transact([
    { Put: { TableName: config.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
    pointer,
    ...(cancelReplaced ? [cancelReplaced] : []),
    auditPut(
      {
        entityType: 'Subscription',
        entityId: id,
        action: 'Created',
        changes: { planId: plan.id, billingPeriod: plan.billingPeriod, trialDays },
        actor,
        tenantId: t,
      },
      at,
    ),
  ]).catch(async (err: unknown) => {
    await closeCheckout();
    throw err;
  });
  if (!outcome.ok) {
    await closeCheckout();
    throw conflict('The tenant already has a live subscription', 'SUBSCRIPTION_EXISTS');
  }
  await countAudit(1);
  return { subscriptionId: id, checkoutUrl: checkout.checkoutUrl, status: 'PENDING' };
}

/**
 * The tenant's subscription that is still waiting for its first checkout: a new request replaces
 * it (the customer changed their mind before paying). A live one is 409.
 */
async function unpaidToReplace(t: string): Promise<Item | null> {
  const pointer = await read(billingKeys.current(t));
  if (!pointer || pointer.state === 'cancelled') return null;
  const sub =
    pointer.state === 'pending' ? await read(billingKeys.subscription(t, String(pointer.subscriptionId))) : undefined;
  if (!sub?.awaitingCheckout) throw conflict('The tenant already has a live subscription', 'SUBSCRIPTION_EXISTS');
  return sub;
}

/** The subscription the tenant's pointer names (404 when it never had one). */
export async function currentSubscriptionItem(t: string): Promise<Item> {
  const pointer = await read(billingKeys.current(t));
  const sub = pointer ? await read(billingKeys.subscription(t, String(pointer.subscriptionId))) : undefined;
  if (!sub) throw notFound('Subscription');
  return sub;
}

export const currentSubscription = async (t: string) => toCurrentSubscription(await currentSubscriptionItem(t));

/** Every tenant's subscriptions from the platform-wide index, newest first, with tenant names. */
export async function adminSubscriptions(q: { page: number; pageSize: number; statusFilter?: number }) {
  const filtered = q.statusFilter !== undefined;
  const all = await queryItems({
    TableName: config.tableName,
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.allSubscriptions(), ...(filtered ? { ':s': q.statusFilter } : {}) },
    ...(filtered ? { FilterExpression: '#status = :s', ExpressionAttributeNames: { '#status': 'status' } } : {}),
    ScanIndexForward: false,
  });
  const start = (q.page - 1) * q.pageSize;
  const page = all.slice(start, start + q.pageSize);
  const names = await tenantNames([...new Set(page.map((s) => String(s.tenantId)))]);
  const items = page.map((s) => ({
    id: s.id as string,
    tenantId: s.tenantId as string,
    tenantName: names.get(String(s.tenantId)) ?? '',
    planName: s.planName as string,
    status: Number(s.status),
    price: toMajor(Number(s.priceMinor), String(s.currency)),
    renewalDate: (s.renewalDate as string | null) ?? null,
  }));
  return toPage(items, all.length, q.page, q.pageSize);
}

export async function tenantNames(ids: string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (!ids.length) return names;
  const out = await ddb().send(
    new BatchGetCommand({
      RequestItems: {
        [config.tableName]: {
          Keys: ids.map((id) => keys.platformItem('TENANT', id)),
          ProjectionExpression: 'id, #n',
          ExpressionAttributeNames: { '#n': 'name' },
        },
      },
    }),
  );
  for (const t of out.Responses?.[config.tableName] ?? []) names.set(String(t.id), String(t.name ?? ''));
  return names;
}

/** Moves a trialing subscription's trial end (and first charge) later; the tenant's trial date follows. */
export async function extendTrial(t: string, days: number, actor: Principal) {
  if (!(await read(keys.platformItem('TENANT', t)))) throw notFound('Tenant');
  const sub = await currentSubscriptionItem(t);
  if (Number(sub.status) !== SubscriptionStatus.Trialing || !sub.trialExpiresAt)
    throw conflict('Only a trialing subscription can have its trial extended', 'NOT_TRIALING');
  const from = String(sub.trialExpiresAt);
  const until = addDays(from, days);
  const now = new Date().toISOString();
  await commitChange(
    [
      updateItem(
        billingKeys.subscription(t, String(sub.id)),
        { trialExpiresAt: until, renewalDate: until, updatedAt: now },
        {
          condition: '#status = :trialing AND trialExpiresAt = :from',
          names: { '#status': 'status' },
          values: { ':trialing': SubscriptionStatus.Trialing, ':from': from },
        },
      ),
      updateItem(keys.platformItem('TENANT', t), { trialExpiresAt: until }),
    ],
    {
      tenantId: t,
      actor,
      entityType: 'Subscription',
      entityId: String(sub.id),
      action: 'TrialExtended',
      changes: { additionalDays: days, trialExpiresAt: until },
    },
    now,
  );
  return toCurrentSubscription({ ...sub, trialExpiresAt: until, renewalDate: until });
}
