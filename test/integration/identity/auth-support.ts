import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { get } from '#shared/data/read.ts';
import { expect } from 'vitest';
import { hashPassword } from '#areas/identity/password.ts';
import { keys } from '#shared/data/keys.ts';
import { createUser, type UserRecord } from '#areas/identity/user-accounts.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { invoke } from '#test/support/invoke.ts';
import { testMailer } from '#test/support/test-ports.ts';
import { userRecord } from '#test/support/fixtures.ts';

/** Helpers shared by the auth integration tests (not a test file itself). */

let ipCounter = 0;
/** A fresh source address per call: the auth routes are rate-limited per IP. */
export const freshIp = () => {
  ipCounter++;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
};

export const PASSWORD = 'Correct-Horse-9';
let passwordHash: Promise<string> | undefined;
/** One scrypt hash of PASSWORD per file, reused by every seeded user. */
const standardHash = () => (passwordHash ??= hashPassword(PASSWORD));

export const uniqueEmail = (tag = 'user') => `${tag}-${crypto.randomUUID().slice(0, 8)}@example.com`;

export async function seedUser(overrides: Partial<UserRecord> = {}): Promise<UserRecord> {
  const user = userRecord({
    email: uniqueEmail(),
    firstName: 'Ada',
    lastName: 'Lovelace',
    isEmailVerified: true,
    passwordHash: await standardHash(),
    ...overrides,
  });
  await createUser(user, null);
  return user;
}

/** A tenant item with the numeric status the sign-in check reads (1 Active, 0 Pending, 2 Suspended, 3 Cancelled). */
export async function seedTenant(status: number, id: string = crypto.randomUUID()) {
  await ddb().send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...keys.platformItem('TENANT', id), id, status, name: `T ${status}` },
    }),
  );
  return id;
}

export async function login(email: string, password = PASSWORD, extra: Record<string, unknown> = {}) {
  return invoke('POST', '/api/auth/login', { body: { email, password, ...extra }, ip: freshIp() });
}

export async function signedIn(email: string, password = PASSWORD, rememberMe = false) {
  const res = await login(email, password, { rememberMe });
  expect(res, JSON.stringify(res.json)).toAnswer(200);
  return res.json.result as { accessToken: string; refreshToken: string; expiresIn: number; user: { id: string } };
}

export const mailsTo = (email: string) => testMailer.outbox.filter((m) => m.to.includes(email));
export const lastMailTo = (email: string) => mailsTo(email).at(-1);
export const codeIn = (mail: { text: string } | undefined) => /code is (\d{6})/.exec(mail?.text ?? '')?.[1];

export async function readItem<T = Record<string, unknown>>(key: { pk: string; sk: string }) {
  return get<T>(key, { consistent: true });
}

/** Audit entries of one user (or `unknown`), oldest first. */
export async function auditOf(entityId: string) {
  const out = await ddb().send(
    new QueryCommand({
      TableName: config.tableName,
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: 'entityId = :id',
      ExpressionAttributeValues: { ':pk': keys.platformCollection('AUDIT'), ':id': entityId },
    }),
  );
  return (out.Items ?? []).sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt))) as {
    action: string;
    changes: string | null;
    userId: string | null;
  }[];
}

/**
 * Sends the auth function's HTTP calls to the public base URL (token endpoint, JWKS of the local
 * providers) to the local-provider handler in-process, as the local server would over a socket.
 */
export function routeFetchToLocalProviders() {
  const real = globalThis.fetch;
  const origin = new URL(config.publicBaseUrl).origin;
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (url.origin !== origin) return real(input, init);
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const res = await invoke(init?.method ?? 'GET', `${url.pathname}${url.search}`, {
      ...(typeof init?.body === 'string' ? { rawBody: init.body, contentType: headers['content-type'] } : {}),
      headers,
    });
    return new Response(res.text, { status: res.status, headers: res.headers });
  }) as typeof fetch;
  return () => {
    globalThis.fetch = real;
  };
}
