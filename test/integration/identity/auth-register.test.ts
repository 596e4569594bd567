import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { scryptParams } from '#areas/identity/password.ts';
import { keys } from '#shared/data/keys.ts';
import { identityKeys, type OneTimeItem } from '#areas/identity/records.ts';
import { findUserByEmail } from '#areas/identity/user-accounts.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { invoke } from '#test/support/invoke.ts';
import { auditOf, codeIn, freshIp, lastMailTo, login, mailsTo, readItem, uniqueEmail } from './auth-support.ts';
import { inOneRateWindow } from '#test/support/fixtures.ts';

const STRONG = 'Sturdy-Pass-42';
const registration = (email: string, extra: Record<string, unknown> = {}) => ({
  email,
  password: STRONG,
  firstName: 'Grace',
  lastName: 'Hopper',
  ...extra,
});
const register = (body: unknown, ip = freshIp()) => invoke('POST', '/api/auth/register', { body, ip });
const verify = (email: string, code: string, ip = freshIp()) =>
  invoke('POST', '/api/auth/verify-email', { body: { email, code }, ip });
const resend = (email: string, ip = freshIp()) =>
  invoke('POST', '/api/auth/resend-verification', { body: { email }, ip });

describe('POST /api/auth/register', () => {
  it('creates an unverified account without tenant or roles, mails a code and records the event', async () => {
    const email = uniqueEmail('reg');
    const res = await register(
      registration(`  ${email.toUpperCase()} `, {
        phoneNumber: '+41 44 000 00 00',
        roles: ['SystemAdmin'],
        tenantId: crypto.randomUUID(),
      }),
    );

    expect(res).toAnswer(201);
    expect(res.json).toEqual({
      success: true,
      result: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), email, isActive: true },
    });
    const user = await findUserByEmail(email);
    expect(user).toMatchObject({
      email,
      roles: [],
      tenantId: null,
      isEmailVerified: false,
      isActive: true,
      phoneNumber: '+41 44 000 00 00',
    });
    expect(user!.passwordHash).toMatch(new RegExp(`^scrypt\\$${scryptParams().N}\\$8\\$1\\$`));
    expect(JSON.stringify(user)).not.toContain(STRONG);

    const mail = lastMailTo(email);
    expect(mail?.subject).toMatch(/verification code/i);
    const code = codeIn(mail)!;
    expect(code).toMatch(/^\d{6}$/);
    const stored = await readItem<OneTimeItem>(identityKeys.oneTime('VERIFY', user!.id));
    expect(stored).toMatchObject({ attempts: 0, secretHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(stored)).not.toContain(code);
    expect(stored!.expiresAt - Date.now() / 1000).toBeGreaterThan(14 * 60);
    expect(stored!.expiresAt - Date.now() / 1000).toBeLessThanOrEqual(15 * 60);

    const events = await ddb().send(
      new QueryCommand({
        TableName: config.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.platformCollection('INTEGRATION_EVENT') },
      }),
    );
    const event = events.Items!.find((e) => JSON.parse(e.data as string).userId === user!.id);
    expect(event).toMatchObject({ eventType: 'user.registered', status: 'recorded', createdAt: user!.createdAt });
    expect(JSON.parse(event!.data as string)).toEqual({ userId: user!.id, email, tenantId: null, source: 'password' });
    expect((await auditOf(user!.id)).map((a) => a.action)).toContain('create');
  });

  it('gives one 201 and DUPLICATE_EMAIL for the rest when one address registers concurrently', async () => {
    const email = uniqueEmail('dup');
    const spellings = [email, email.toUpperCase(), ` ${email} `];
    const results = await Promise.all(spellings.map((e) => register(registration(e))));

    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    for (const r of results.filter((x) => x.status === 400)) {
      expect(r.json).toEqual({ success: false, error: { code: 'DUPLICATE_EMAIL', message: expect.any(String) } });
    }
    const winner = results.find((r) => r.status === 201)!.json.result.id;
    expect((await findUserByEmail(email))!.id).toBe(winner);
    expect(mailsTo(email)).toHaveLength(1);

    const again = await register(registration(email.toUpperCase()));
    expect(again.json.error.code).toBe('DUPLICATE_EMAIL');
  });

  it('rejects invalid data with VALIDATION_ERROR and creates nothing', async () => {
    const email = uniqueEmail('bad');
    const cases: [unknown, string][] = [
      [{ ...registration(email), email: undefined }, 'body.email'],
      [registration('not-an-email'), 'body.email'],
      [registration(`${'x'.repeat(250)}@example.com`), 'body.email'],
      [registration(email, { password: 'short1A' }), 'body.password'],
      [registration(email, { password: 'alllowercase1' }), 'body.password'],
      [registration(email, { password: 'ALLUPPERCASE1' }), 'body.password'],
      [registration(email, { password: 'NoDigitsHere' }), 'body.password'],
      [registration(email, { password: `Aa1${'x'.repeat(254)}` }), 'body.password'],
      [registration(email, { firstName: 'x'.repeat(101) }), 'body.firstName'],
      [registration(email, { lastName: '   ' }), 'body.lastName'],
      [registration(email, { firstName: 42 }), 'body.firstName'],
    ];
    for (const [body, path] of cases) {
      const res = await register(body);
      expect(res, path).toAnswer(400, 'VALIDATION_ERROR');
      expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    const malformed = await invoke('POST', '/api/auth/register', { rawBody: '{"email":', ip: freshIp() });
    expect(malformed.json.error.code).toBe('INVALID_JSON');
    expect(await findUserByEmail(email)).toBeUndefined();
    expect(mailsTo(email)).toHaveLength(0);
  });

  it('limits registration to 5 per minute per IP while another IP still passes', async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    // Invalid bodies count too (the limiter runs before validation), and cost no password hash.
    await inOneRateWindow(async () => {
      for (let i = 0; i < 6; i++) statuses.push((await register({ email: 'x' }, ip)).status);
    });
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
    const limited = await register({ email: 'x' }, ip);
    expect(limited.json.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(await register({ email: 'x' }, freshIp())).toAnswer(400);
  });
});

describe('POST /api/auth/verify-email and resend-verification', () => {
  it('verifies with the mailed code once; sign-in then issues tokens', async () => {
    const email = uniqueEmail('ver');
    expect(await register(registration(email))).toAnswer(201);
    const code = codeIn(lastMailTo(email))!;

    const before = await login(email, STRONG);
    expect(before).toAnswer(200);
    expect(before.json.result).toMatchObject({
      requiredEmailVerification: true,
      accessToken: '',
      refreshToken: '',
      expiresIn: 0,
    });

    const wrong = await verify(email, code === '000000' ? '111111' : '000000');
    expect(wrong).toAnswer(400, 'INVALID_CODE');
    expect((await verify(email, '12345')).json.error.code).toBe('VALIDATION_ERROR');
    expect((await verify(email, 'abcdef')).json.error.code).toBe('VALIDATION_ERROR');
    expect((await verify(uniqueEmail('nobody'), code)).json.error.code).toBe('INVALID_CODE');

    const ok = await verify(email, code);
    expect(ok).toAnswer(200);
    expect(ok.json).toEqual({ success: true, result: null });
    expect((await findUserByEmail(email))!.isEmailVerified).toBe(true);

    const reused = await verify(email, code);
    expect(reused).toAnswer(400, 'INVALID_CODE');

    const after = await login(email, STRONG);
    expect(after.json.result.requiredEmailVerification).toBe(false);
    expect(after.json.result.accessToken).not.toBe('');
  });

  it("does not let one stranger's wrong codes burn the owner's code", async () => {
    const email = uniqueEmail('stranger');
    await register(registration(email));
    const code = codeIn(lastMailTo(email))!;
    const wrongCode = code === '999999' ? '999998' : '999999';
    const stranger = freshIp();
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => verify(email, wrongCode, stranger)));
    expect(outcomes.map((r) => r.json.error.code)).toEqual(Array(5).fill('INVALID_CODE'));
    const own = await verify(email, code);
    expect(own).toAnswer(200);
    expect((await findUserByEmail(email))!.isEmailVerified).toBe(true);
  });

  it('locks a code after 20 wrong attempts from all addresses together and refuses an expired one', async () => {
    const email = uniqueEmail('lock');
    const { json } = await register(registration(email));
    const code = codeIn(lastMailTo(email))!;
    const wrongCode = code === '999999' ? '999998' : '999999';
    const outcomes = await Promise.all(Array.from({ length: 22 }, () => verify(email, wrongCode)));
    expect(outcomes.filter((r) => r.json.error.code === 'INVALID_CODE')).toHaveLength(20);
    expect(outcomes.filter((r) => r.json.error.code === 'TOO_MANY_ATTEMPTS')).toHaveLength(2);
    const locked = await verify(email, code);
    expect(locked.json.error.code).toBe('TOO_MANY_ATTEMPTS');
    expect((await findUserByEmail(email))!.isEmailVerified).toBe(false);

    // A fresh code after the cooldown, then expire it.
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: identityKeys.oneTime('RESEND', `verify:${email}`),
        UpdateExpression: 'SET sentAt = :old',
        ExpressionAttributeValues: { ':old': Date.now() - 61_000 },
      }),
    );
    expect(await resend(email)).toAnswer(200);
    const fresh = codeIn(lastMailTo(email))!;
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: identityKeys.oneTime('VERIFY', json.result.id),
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    const expired = await verify(email, fresh);
    expect(expired).toAnswer(400, 'CODE_EXPIRED');
  });

  it('resends once per 60 s per address (429 with Retry-After), revealing nothing about unknown addresses', async () => {
    const email = uniqueEmail('resend');
    await register(registration(email));
    const first = codeIn(lastMailTo(email))!;

    // The registration e-mail started the cooldown.
    const tooSoon = await resend(email);
    expect(tooSoon).toAnswer(429, 'RATE_LIMITED');
    const retryAfter = Number(tooSoon.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(50);
    expect(retryAfter).toBeLessThanOrEqual(60);

    const unknown = uniqueEmail('ghost');
    const ghost = await resend(unknown);
    expect(ghost).toAnswer(200);
    expect(ghost.json).toEqual({ success: true, result: null });
    expect(await resend(unknown)).toAnswer(429);
    expect(mailsTo(unknown)).toHaveLength(0);

    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: identityKeys.oneTime('RESEND', `verify:${email}`),
        UpdateExpression: 'SET sentAt = :old',
        ExpressionAttributeValues: { ':old': Date.now() - 60_000 },
      }),
    );
    const again = await resend(email);
    expect(again).toAnswer(200);
    expect(mailsTo(email)).toHaveLength(2);
    const second = codeIn(lastMailTo(email))!;
    if (second !== first) expect((await verify(email, first)).json.error.code).toBe('INVALID_CODE');
    expect(await verify(email, second)).toAnswer(200);
  });
});
