import { LEASE_LIFE_MS } from '#areas/llm-gateway/leases.ts';
import { releaseExpiredReservations } from '#areas/llm-gateway/reservations.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { invoke, type InvokeOptions } from './invoke.ts';

const rnd = () => Math.floor(Math.random() * 250) + 1;
export const ip = () => `10.${rnd()}.${rnd()}.${rnd()}`;

/** A request as an OpenAI client sends it: the gateway key (or token) as the bearer. */
export const v1 = (method: string, path: string, secret: string, opts: Omit<InvokeOptions, 'token'> = {}) =>
  invoke(method, `/api/llm-gateway/v1${path}`, {
    ip: ip(),
    ...opts,
    headers: { authorization: `Bearer ${secret}`, ...opts.headers },
  });

export async function newKey(owner: string, body: Record<string, unknown> = {}) {
  const res = await invoke('POST', '/api/llm-gateway/keys', {
    token: owner,
    ip: ip(),
    body: { name: 'test key', ...body },
  });
  if (res.status !== 201) throw new Error(`keys.create answered ${res.status}: ${res.text}`);
  return res.json.result as { id: string; key: string; keyPrefix: string };
}

/** Sets the tenant's maxTokensPerMonth directly (the integration tier's shortcut for the admin route). */
export async function setAllowance(tenantId: string, maxTokensPerMonth: number | null) {
  await ddb().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys.platformItem('TENANT', tenantId),
      UpdateExpression: 'SET maxTokensPerMonth = :m',
      ExpressionAttributeValues: { ':m': maxTokensPerMonth },
    }),
  );
}

/** Sets the tenant's status directly (0 Pending, 1 Active, 2 Suspended, 3 Cancelled), as the status route stores it. */
export async function setTenantStatus(tenantId: string, status: 0 | 1 | 2 | 3) {
  await ddb().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys.platformItem('TENANT', tenantId),
      UpdateExpression: 'SET #s = :s',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':s': status },
    }),
  );
}

export const userSays = (text: string) => [{ role: 'user', content: text }];

/** Counts the DynamoDB requests the code under `run` sends. */
export async function requestsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const name = `count-${crypto.randomUUID()}`;
  ddb().middlewareStack.add(
    (next, context) => (args) => {
      sent.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await run();
  } finally {
    ddb().middlewareStack.remove(name);
  }
  return sent;
}

/**
 * The scheduler's sweep as it runs once every lease written until now has expired: each is settled
 * to the use its calls recorded, so nothing stays leased (reservations.ts).
 */
export const sweepAfterLeasesExpire = () => releaseExpiredReservations(Date.now() + LEASE_LIFE_MS + 1000);
