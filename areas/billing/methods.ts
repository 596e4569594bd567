import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, deleteItem, orConflict, putItem, putNew, type TransactItem } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get, getOr404 } from '#shared/data/read.ts';
import { notFound } from '#shared/http/errors.ts';
import { defaultTaken, limitReached } from './errors.ts';
import { config } from '#shared/platform/config.ts';
import { paymentGateway } from './gateway.ts';
import { billingKeys, defaultMethodItem, methodItem, toMethod, type MethodRecord } from './records.ts';
import { METHOD_LIMIT, type ProviderId } from './vocabulary.ts';

/** The tenant's methods (one Query) and its default pointer (one GetItem). */
async function methodsOf(tenantId: string): Promise<{ methods: MethodRecord[]; defaultId: string | null }> {
  const [items, pointer] = await Promise.all([
    queryItems<MethodRecord>({
      TableName: config.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': billingKeys.methods(tenantId) },
      ConsistentRead: true,
    }),
    get<{ methodId?: string }>(billingKeys.defaultMethod(tenantId), { consistent: true }),
  ]);
  return {
    // The partition also holds the methods' counter.
    methods: items.filter((m) => typeof m.id === 'string'),
    defaultId: pointer?.methodId ?? null,
  };
}

export async function listMethods(tenantId: string) {
  const { methods, defaultId } = await methodsOf(tenantId);
  return methods
    .sort(
      (a, b) =>
        Number(b.id === defaultId) - Number(a.id === defaultId) ||
        String(b.createdAt).localeCompare(String(a.createdAt)),
    )
    .map((m) => toMethod(m, defaultId));
}

/**
 * The tenant's method counter moved by `by`, under the limit when adding. A tenant whose counter
 * does not exist yet (methods stored before it) starts from the methods listed.
 */
function countMethods(tenantId: string, by: 1 | -1, listed: number): TransactItem {
  return {
    Update: {
      TableName: config.tableName,
      Key: billingKeys.methodCount(tenantId),
      UpdateExpression: 'SET #count = if_not_exists(#count, :listed) + :by',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':listed': listed, ':by': by, ...(by > 0 ? { ':limit': METHOD_LIMIT } : {}) },
      ...(by > 0 ? { ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit' } : {}),
    },
  };
}

/**
 * Exchanges the provider token for a stored method; the tenant's first method becomes its default.
 * The limit is a condition of the write (the counter), so parallel adds never store more than it.
 */
export async function addMethod(tenantId: string, input: { provider: number; token: string }, actor: Principal) {
  const { methods, defaultId } = await methodsOf(tenantId);
  if (methods.length >= METHOD_LIMIT) throw limitReached();
  const card = await paymentGateway(input.provider as ProviderId).attachMethod(input.token);
  const method: MethodRecord = {
    id: crypto.randomUUID(),
    tenantId,
    provider: input.provider,
    ...card,
    createdAt: new Date().toISOString(),
  };
  const taken = defaultTaken();
  const commit = (makeDefault: boolean) =>
    commitChange(
      [
        orConflict(putNew(methodItem(method)), 'Payment methods changed meanwhile; try again'),
        orConflict(countMethods(tenantId, 1, methods.length), limitReached()),
        makeDefault ? orConflict(putNew(defaultMethodItem(tenantId, method.id, method.createdAt)), taken) : null,
      ],
      {
        tenantId,
        actor,
        entityType: 'PaymentMethod',
        entityId: method.id,
        action: 'Created',
        changes: { provider: input.provider, lastFourDigits: card.lastFourDigits, isDefault: makeDefault },
      },
      { now: method.createdAt },
    );
  // A parallel add may make its own method the default first: this one is then stored as another method.
  let isDefault = !defaultId;
  try {
    await commit(isDefault);
  } catch (err) {
    if (err !== taken) throw err;
    isDefault = false;
    await commit(false);
  }
  return toMethod(method, isDefault ? method.id : null);
}

export async function setDefault(tenantId: string, methodId: string, actor: Principal) {
  const method = await getOr404<MethodRecord>(billingKeys.method(tenantId, methodId), 'Payment method', {
    consistent: true,
  });
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(
        {
          ConditionCheck: {
            TableName: config.tableName,
            Key: billingKeys.method(tenantId, methodId),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        notFound('Payment method'),
      ),
      putItem(defaultMethodItem(tenantId, methodId, now)),
    ],
    {
      tenantId,
      actor,
      entityType: 'PaymentMethod',
      entityId: methodId,
      action: 'SetDefault',
      changes: { isDefault: true },
    },
    { now },
  );
  return toMethod(method, methodId);
}

/** Deletes a method; when it was the default, the newest remaining method takes over (or none is left). */
export async function deleteMethod(tenantId: string, methodId: string, actor: Principal) {
  const { methods, defaultId } = await methodsOf(tenantId);
  if (!methods.some((m) => m.id === methodId)) throw notFound('Payment method');
  const now = new Date().toISOString();
  const successor = methods
    .filter((m) => m.id !== methodId)
    .sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)))[0];
  const pointer =
    defaultId !== methodId
      ? null
      : successor
        ? putItem(defaultMethodItem(tenantId, successor.id, now))
        : deleteItem(billingKeys.defaultMethod(tenantId));
  await commitChange(
    [
      orConflict(
        deleteItem(billingKeys.method(tenantId, methodId), 'attribute_exists(pk)'),
        notFound('Payment method'),
      ),
      countMethods(tenantId, -1, methods.length),
      pointer,
    ],
    { tenantId, actor, entityType: 'PaymentMethod', entityId: methodId, action: 'Deleted', changes: null },
    { now },
  );
}
