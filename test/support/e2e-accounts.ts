import { expect } from 'vitest';
import { api, e2e } from './e2e.ts';

export const STORY_PASSWORD = 'Str0ngPassw0rd';

interface Mail {
  to: string[];
  subject: string;
  text: string;
}

/** E-mail is delivered by the queue worker after the request returns, so the outbox is polled. */
export async function lastMailTo(address: string, pattern: RegExp, seen = new Set<string>()): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const res = await fetch(`${e2e().baseUrl}/_local/outbox`);
    const mails = ((await res.json()) as Mail[]).filter((m) => m.to.includes(address));
    for (const mail of mails.reverse()) {
      const match = pattern.exec(mail.text);
      if (match && !seen.has(match[1]!)) return match[1]!;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`No e-mail to ${address} matching ${pattern}`);
}

/** Registers with an invitation code, verifies the e-mail and signs in, as a real client does. */
export async function joinWithCode(email: string, code: string, ip: string, name: string, password = STORY_PASSWORD) {
  const registered = await api('POST', '/api/auth/register', {
    localAddress: ip,
    body: { email, password, firstName: name, lastName: 'Story', invitationCode: code },
  });
  expect(registered).toAnswer(201);
  const verifyCode = await lastMailTo(email, /verification code is (\d{6})/);
  const verified = await api('POST', '/api/auth/verify-email', { localAddress: ip, body: { email, code: verifyCode } });
  expect(verified).toAnswer(200);
  const login = await api('POST', '/api/auth/login', { localAddress: ip, body: { email, password } });
  expect(login).toAnswer(200);
  return {
    id: registered.json.result.id as string,
    token: login.json.result.accessToken as string,
    refreshToken: login.json.result.refreshToken as string,
    user: login.json.result.user,
  };
}
