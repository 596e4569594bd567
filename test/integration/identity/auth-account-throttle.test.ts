import { describe, expect, it } from 'vitest';
import { invoke } from '#test/support/invoke.ts';
import { freshIp, lastMailTo, PASSWORD, seedUser, uniqueEmail } from './auth-support.ts';

/**
 * Distributed guessing against one account. Every guess comes from another
 * address, so the per-IP limit never triggers; the per-account throttle does, without locking the
 * owner out of a device it signed in from before.
 */
const attempt = (email: string, password: string, extra: Record<string, unknown> = {}) =>
  invoke('POST', '/api/auth/login', { body: { email, password, ...extra }, ip: freshIp() });
const guess10 = async (email: string) => {
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => attempt(email, `Wrong-Guess-${i}x`)));
  expect(answers.map((a) => a.json.error.code)).toEqual(Array(10).fill('INVALID_CREDENTIALS'));
};

// Each guess costs a scrypt verification: on a busy machine that takes a while.
describe('per-account sign-in throttle', { timeout: 120_000 }, () => {
  it('refuses further sign-ins after 10 failures from many addresses, but not on a known device', async () => {
    const user = await seedUser();
    const before = await attempt(user.email, PASSWORD);
    expect(before).toAnswer(200);
    const deviceToken = before.json.result.deviceToken as string;
    expect(deviceToken).toMatch(/^[A-Za-z0-9_-]{43}$/);

    await guess10(user.email);
    // The right password from a new client is not even checked.
    const stranger = await attempt(user.email, PASSWORD);
    expect(stranger).toAnswer(429, 'RATE_LIMITED');
    expect(Number(stranger.headers['retry-after'])).toBeGreaterThan(0);
    expect(await attempt(user.email, PASSWORD, { deviceToken: 'x'.repeat(43) })).toAnswer(429);

    // The owner's device still signs in, and gets a fresh device token.
    const owner = await attempt(user.email, PASSWORD, { deviceToken });
    expect(owner).toAnswer(200);
    expect(owner.json.result.deviceToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // A device token of another account does not help.
    const other = await seedUser();
    const otherDevice = (await attempt(other.email, PASSWORD)).json.result.deviceToken;
    expect(await attempt(user.email, PASSWORD, { deviceToken: otherDevice })).toAnswer(429);
  });

  it('lets a parallel burst of guesses from many addresses check at most 10 passwords', async () => {
    const user = await seedUser();
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => attempt(user.email, `Burst-Guess-${i}x`)));
    const codes = answers.map((a) => a.json.error.code);
    expect(codes.filter((c) => c === 'INVALID_CREDENTIALS')).toHaveLength(10);
    expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(6);
  });

  it('treats an unknown address the same way (no enumeration) and is cleared by a password reset', async () => {
    const ghost = uniqueEmail('ghost');
    await guess10(ghost);
    expect(await attempt(ghost, PASSWORD)).toAnswer(429);

    const user = await seedUser();
    await guess10(user.email);
    expect(await attempt(user.email, PASSWORD)).toAnswer(429);
    await invoke('POST', '/api/auth/forgot-password', { body: { email: user.email }, ip: freshIp() });
    const token = /reset code: ([A-Za-z0-9_-]{43})/.exec(lastMailTo(user.email)!.text)![1];
    const reset = await invoke('POST', '/api/auth/reset-password', {
      body: { email: user.email, resetToken: token, newPassword: 'After-Reset-2024' },
      ip: freshIp(),
    });
    expect(reset).toAnswer(200);
    expect(await attempt(user.email, 'After-Reset-2024')).toAnswer(200);
  });
});
