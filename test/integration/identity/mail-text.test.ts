import { describe, expect, it } from 'vitest';
import { invoke } from '#test/support/invoke.ts';
import { testMailer } from '#test/support/test-ports.ts';
import { freshIp, uniqueEmail } from './auth-support.ts';

/**
 * Names that strangers type reach e-mails sent to any address. A name with a link
 * or control characters is refused (400, nothing sent); accepted names never reach a subject and
 * are quoted in the body.
 */
const PHISH = 'URGENT: your payroll account is locked - restore at https://evil.example/login';
const mailsTo = (email: string) => testMailer.outbox.filter((m) => m.to.includes(email));
const onboard = (body: Record<string, unknown>) => invoke('POST', '/api/onboarding/start', { body, ip: freshIp() });
const register = (body: Record<string, unknown>) =>
  invoke('POST', '/api/auth/register', {
    body: { password: 'Correct-Horse-9', lastName: 'Doe', ...body },
    ip: freshIp(),
  });

describe('names in platform e-mails', () => {
  it.each([
    ['the reported phishing text', PHISH],
    ['a bare host name', 'Visit evil.example now'],
    ['www.', 'Acme www.evil'],
    ['a line break', 'Acme\nSubject: hi'],
    ['a bidi override', 'Acme \u202etxt.exe'],
  ])('onboarding refuses a tenantName with %s (400, no mail)', async (_what, tenantName) => {
    const email = uniqueEmail('phish');
    const res = await onboard({ tenantName, email, firstName: 'Pat', lastName: 'Doe' });
    expect(res).toAnswer(400, 'VALIDATION_ERROR');
    expect([...new Set(res.json.error.details.map((d: { path: string }) => d.path))]).toEqual(['body.tenantName']);
    expect(mailsTo(email)).toEqual([]);
  });

  it('registration refuses a firstName with a link (400, no mail)', async () => {
    const email = uniqueEmail('phish');
    const res = await register({ email, firstName: 'Click https://evil.example/x' });
    expect(res).toAnswer(400);
    expect(res.json.error.details.map((d: { path: string }) => d.path)).toEqual(['body.firstName']);
    expect(mailsTo(email)).toEqual([]);
  });

  it('keeps an accepted name out of the subject and quotes it in the body; registration mails carry no name', async () => {
    const email = uniqueEmail('fine');
    const res = await onboard({ tenantName: "O'Brien & Daughters", email, firstName: 'Zoë', lastName: 'Ng' });
    expect(res).toAnswer(201);
    const [invitation] = mailsTo(email);
    expect(invitation!.subject).toBe('Set up your organisation');
    expect(invitation!.text).toContain('the organisation named "O\'Brien & Daughters"');
    expect(invitation!.html).toContain('&#34;O&#39;Brien &#38; Daughters&#34;');

    const member = uniqueEmail('member');
    expect(await register({ email: member, firstName: 'Marvellous' })).toAnswer(201);
    const [verification] = mailsTo(member);
    expect(verification!.subject).toBe('Your verification code');
    expect(verification!.text).not.toContain('Marvellous');
  });
});
