import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { newSession } from '#areas/identity/refresh-tokens.ts';
import { keys } from '#shared/data/keys.ts';
import { identityKeys, type OneTimeItem } from '#areas/identity/records.ts';
import { commitChange } from '#shared/data/commit.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { issueResetToken } from '#areas/identity/auth/passwords.ts';
import { mailer } from '#shared/platform/ports.ts';
import { inOneRateWindow } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { sentMessages, testMailer } from '#test/support/test-ports.ts';
import {
  auditOf,
  freshIp,
  lastMailTo,
  login,
  mailsTo,
  PASSWORD,
  readItem,
  seedUser,
  signedIn,
  uniqueEmail,
} from './auth-support.ts';

const forgot = (email: string) => invoke('POST', '/api/auth/forgot-password', { body: { email }, ip: freshIp() });
const reset = (email: string, resetToken: string, newPassword = 'Reset-Pass-2024') =>
  invoke('POST', '/api/auth/reset-password', { body: { email, resetToken, newPassword }, ip: freshIp() });
const tokenIn = (mail: { text: string } | undefined) => /reset code: ([A-Za-z0-9_-]{43})/.exec(mail?.text ?? '')?.[1];

describe('forgot-password and reset-password', () => {
  it('does the same request-path work for a known and an unknown address: one queued request, nothing else', async () => {
    const user = await seedUser();
    const queued = async (email: string) => {
      const from = sentMessages.length;
      expect((await forgot(email)).json).toEqual({ success: true, result: null });
      return sentMessages
        .slice(from)
        .map((m) => ({ queue: m.queue, type: m.message.type, fields: Object.keys(m.message.payload).sort() }));
    };
    const known = await queued(user.email);
    const unknown = await queued(uniqueEmail('nobody'));
    expect(known).toEqual([{ queue: 'email', type: 'password.reset.request', fields: ['email', 'ip'] }]);
    expect(unknown).toEqual(known);
    // The worker then mailed the known address only.
    expect(tokenIn(lastMailTo(user.email))).toBeDefined();
  });

  it('answers 200 null for any address and mails a link and token only when the account exists', async () => {
    const ghost = uniqueEmail('ghost');
    const res = await forgot(ghost);
    expect(res).toAnswer(200);
    expect(res.json).toEqual({ success: true, result: null });
    expect(mailsTo(ghost)).toHaveLength(0);

    const user = await seedUser({ isEmailVerified: false });
    const known = await forgot(user.email.toUpperCase());
    expect(known.json).toEqual(res.json);
    const mail = lastMailTo(user.email)!;
    const token = tokenIn(mail)!;
    expect(token).toBeDefined();
    expect(mail.text).toContain(`token=${token}`);
    const stored = await readItem<OneTimeItem>(identityKeys.oneTime('RESET', user.id));
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(stored!.expiresAt - Date.now() / 1000).toBeGreaterThan(29 * 60);
    expect(stored!.expiresAt - Date.now() / 1000).toBeLessThanOrEqual(30 * 60);

    // A second request within 60 s is accepted but sends nothing.
    expect(await forgot(user.email)).toAnswer(200);
    expect(mailsTo(user.email)).toHaveLength(1);
  });

  it('gives the resend cooldown back when the mail fails, so the queue retry still sends it', async () => {
    const user = await seedUser();
    mailer.install({ send: async () => Promise.reject(new Error('SES throttled')) });
    try {
      await expect(issueResetToken({ email: user.email, ip: freshIp() })).rejects.toThrow('SES throttled');
    } finally {
      mailer.install(testMailer);
    }
    await issueResetToken({ email: user.email, ip: freshIp() });
    expect(tokenIn(lastMailTo(user.email))).toBeDefined();
  });

  it('resets once with the mailed token, verifies the address and revokes every session', async () => {
    const user = await seedUser();
    const session = await signedIn(user.email);
    await forgot(user.email);
    const token = tokenIn(lastMailTo(user.email))!;

    const wrong = await reset(user.email, token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA'));
    expect(wrong).toAnswer(400, 'INVALID_RESET_TOKEN');
    expect((await reset(uniqueEmail('nobody'), token)).json.error.code).toBe('INVALID_RESET_TOKEN');
    const weak = await reset(user.email, token, 'password');
    expect(weak.json.error.code).toBe('VALIDATION_ERROR');
    expect(weak.json.error.details[0].path).toBe('body.newPassword');

    const ok = await reset(user.email, token);
    expect(ok).toAnswer(200);
    expect(ok.json).toEqual({ success: true, result: null });
    expect((await reset(user.email, token, 'Another-Pass-99')).json.error.code).toBe('INVALID_RESET_TOKEN');

    const refresh = await invoke('POST', '/api/auth/refresh-token', {
      token: session.accessToken,
      body: { accessToken: session.accessToken, refreshToken: session.refreshToken },
    });
    expect(refresh).toAnswer(401);
    expect((await login(user.email)).json.error.code).toBe('INVALID_CREDENTIALS');
    expect(await login(user.email, 'Reset-Pass-2024')).toAnswer(200);

    const actions = (await auditOf(user.id)).map((a) => a.action);
    expect(actions).toEqual(
      expect.arrayContaining(['password.reset.requested', 'password.reset.failed', 'password.reset']),
    );
  });

  it("refuses an expired token; strangers' wrong tokens never cancel the owner's", async () => {
    const user = await seedUser({ isEmailVerified: false });
    await forgot(user.email);
    const token = tokenIn(lastMailTo(user.email))!;
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: identityKeys.oneTime('RESET', user.id),
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    expect((await reset(user.email, token)).json.error.code).toBe('INVALID_RESET_TOKEN');

    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: identityKeys.oneTime('RESEND', `reset:${user.email}`),
        UpdateExpression: 'SET sentAt = :old',
        ExpressionAttributeValues: { ':old': Date.now() - 61_000 },
      }),
    );
    await forgot(user.email);
    const fresh = tokenIn(lastMailTo(user.email))!;
    for (let i = 0; i < 8; i++)
      expect((await reset(user.email, 'x'.repeat(43))).json.error.code).toBe('INVALID_RESET_TOKEN');
    const own = await reset(user.email, fresh);
    expect(own).toAnswer(200);
    expect(await login(user.email, 'Reset-Pass-2024')).toAnswer(200);
  });

  it('rate-limits reset attempts to 5 per 15 minutes per IP', async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    await inOneRateWindow(async () => {
      for (let i = 0; i < 6; i++)
        statuses.push((await invoke('POST', '/api/auth/reset-password', { body: {}, ip })).status);
    });
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
    expect(await invoke('POST', '/api/auth/reset-password', { body: {}, ip: freshIp() })).toAnswer(400);
  });
});

describe('a password change or reset ends sessions that raced it', () => {
  /** A sign-in that read the account before the change and stored its session after the revocation sweep. */
  async function racedSession(user: { id: string; tenantId: string | null }, sessionVersion: number) {
    const { refreshToken, items } = newSession({ id: user.id, tenantId: user.tenantId, sessionVersion }, false);
    await commitChange(items, null);
    return refreshToken;
  }
  const refresh = (accessToken: string, refreshToken: string) =>
    invoke('POST', '/api/auth/refresh-token', {
      token: accessToken,
      body: { accessToken, refreshToken },
      ip: freshIp(),
    });

  it('change-password bumps the session version, so a session of the old version cannot refresh', async () => {
    const user = await seedUser();
    const s = await signedIn(user.email);
    const before = Number((await readItem(keys.user(null, user.id)))!.sessionVersion ?? 0);
    const changed = await invoke('POST', '/api/auth/change-password', {
      token: s.accessToken,
      body: { currentPassword: PASSWORD, newPassword: 'Changed-Pass-2024' },
      ip: freshIp(),
    });
    expect(changed).toAnswer(200);
    expect((await readItem(keys.user(null, user.id)))!.sessionVersion).toBe(before + 1);
    expect(await refresh(s.accessToken, await racedSession(user, before))).toAnswer(401);
  });

  it('reset-password bumps the session version, so a session of the old version cannot refresh', async () => {
    const user = await seedUser();
    const s = await signedIn(user.email);
    const before = Number((await readItem(keys.user(null, user.id)))!.sessionVersion ?? 0);
    await forgot(user.email);
    expect(await reset(user.email, tokenIn(lastMailTo(user.email))!)).toAnswer(200);
    expect((await readItem(keys.user(null, user.id)))!.sessionVersion).toBe(before + 1);
    expect(await refresh(s.accessToken, await racedSession(user, before))).toAnswer(401);
  });
});
