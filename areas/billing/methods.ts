import type { Principal } from '#shared/auth/access-token.ts';
import { getItem } from '#shared/data/collection.ts';
import { commitChange } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import type { TransactItem } from '#shared/data/transact.ts';
import { paymentGateway } from './gateway.ts';
import { billingKeys, toMethod, type Item, type ProviderId } from './records.ts';
import { conflict, notFound } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';

/** Stored methods per tenant. */
export const METHOD_LIMIT = 10;

const read = (key: { pk: string; sk: string }) => getItem<Item>(key, true);

/** The tenant's methods (one Query) and its default pointer (one GetItem). */
async function methodsOf(t: string): Promise<{ methods: Item[]; defaultId: string | null }> {
  const [methods, pointer] = await Promise.all([
    queryItems({
      TableName: config.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': billingKeys.methods(t) },
      ConsistentRead: true,
    }),
    read(billingKeys.defaultMethod(t)),
  ]);
  return {
    methods: methods.filter((m) => typeof m.id === 'string'),
    defaultId: (pointer?.methodId as string | undefined) ?? null,
  };
}

export async function listMethods(t: string) {
  const { methods, defaultId } = await methodsOf(t);
  return methods
    .sort(
      (a, b) =>
        Number(b.id === defaultId) - Number(a.id === defaultId) ||
        String(b.createdAt).localeCompare(String(a.createdAt)),
    )
    .map((m) => toMethod(m, defaultId));
}

const pointTo = (t: string, methodId: string, now: string): TransactItem => ({
  Put: { TableName: config.tableName, Item: { ...billingKeys.defaultMethod(t), methodId, updatedAt: now } },
});

/** Exchanges the provider token for a stored method; the tenant's first method becomes its default. */
export async function addMethod(t: string, input: { provider: number; token: string }, actor: Principal) {
  const { methods, defaultId } = await methodsOf(t);
  if (methods.length >= METHOD_LIMIT)
    throw conflict(`At most ${METHOD_LIMIT} payment methods per tenant`, 'LIMIT_REACHED');
  const gateway = await paymentGateway(input.provider as ProviderId);
  const card = await gateway.attachMethod(input.token);
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const item = { ...billingKeys.method(t, id), id, tenantId: t, provider: input.provider, ...card, createdAt: now };
  const makeDefault = !defaultId;
  await commitChange(
    [
      { Put: { TableName: config.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      makeDefault
        ? {
            Put: {
              TableName: config.tableName,
              Item: { ...billingKeys.defaultMethod(t), methodId: id, updatedAt: now },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          }
        : null,
    ],
    {
      tenantId: t,
      actor,
      entityType: 'PaymentMethod',
      entityId: id,
      action: 'Created',
      changes: { provider: input.provider, lastFourDigits: card.lastFourDigits, isDefault: makeDefault },
    },
    now,
    'Payment methods changed meanwhile; try again',
  );
  return toMethod(item, makeDefault ? id : defaultId);
}

export async function setDefault(t: string, methodId: string, actor: Principal) {
  const method = await read(billingKeys.method(t, methodId));
  if (!method) throw notFound('Payment method');
  const now = new Date().toISOString();
  await commitChange(
    [
      {
        ConditionCheck: {
          TableName: config.tableName,
          Key: billingKeys.method(t, methodId),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      pointTo(t, methodId, now),
    ],
    {
      tenantId: t,
      actor,
      entityType: 'PaymentMethod',
      entityId: methodId,
      action: 'SetDefault',
      changes: { isDefault: true },
    },
    now,
    notFound('Payment method'),
  );
  return toMethod(method, methodId);
}

/** Deletes a method; when it was the default, the newest remaining method takes over (or none is left). */
export async function deleteMethod(t: string, methodId: string, actor: Principal) {
  const { methods, defaultId } = await methodsOf(t);
  if (!methods.some((m) => m.id === methodId)) throw notFound('Payment method');
  const now = new Date().toISOString();
  const successor = methods
    .filter((m) => m.id !== methodId)
    .sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)))[0];
  const pointer: TransactItem[] =
    defaultId !== methodId
      ? []
      : successor
        ? [pointTo(t, String(successor.id), now)]
        : [{ Delete: { TableName: config.tableName, Key: billingKeys.defaultMethod(t) } }];
  await commitChange(
    [
      {
        Delete: {
          TableName: config.tableName,
          Key: billingKeys.method(t, methodId),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      ...pointer,
    ],
    { tenantId: t, actor, entityType: 'PaymentMethod', entityId: methodId, action: 'Deleted', changes: null },
    now,
    notFound('Payment method'),
  );
}
