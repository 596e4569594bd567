import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { passwordResetEmail, verificationEmail } from '#areas/identity/auth/emails.ts';
import { sixDigitCode } from '#areas/identity/one-time.ts';
import { sameDigest, sha256 } from '#shared/auth/opaque.ts';
import { sendEmail } from '#shared/queue/email.ts';
import { tenantRefusal } from '#areas/identity/tenant-status.ts';

describe('auth e-mail through the e-mail queue (SQS mocked)', () => {
  const sqs = mockClient(SQSClient);
  beforeEach(() => sqs.reset());

  it('queues the verification code e-mail for the e-mail worker', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    await sendEmail(verificationEmail('ada@example.com', '042917'));
    const input = sqs.commandCalls(SendMessageCommand)[0]!.args[0].input;
    expect(input.QueueUrl).toBe('local://email');
    const message = JSON.parse(input.MessageBody!);
    expect(message).toMatchObject({
      type: 'email.send',
      id: expect.any(String),
      payload: { to: ['ada@example.com'], subject: 'Your verification code' },
    });
    expect(message.payload.text).toContain('042917');
    expect(message.payload.html).toContain('<strong>042917</strong>');
  });

  it('sends the reset link and code; a queue failure surfaces to the caller', async () => {
    const mail = passwordResetEmail('a+b@example.com', 'tok_EN-1');
    expect(mail.text).toContain('reset code: tok_EN-1');
    expect(mail.text).toMatch(/\/reset-password\?email=a%2Bb%40example\.com&token=tok_EN-1/);
    sqs.on(SendMessageCommand).rejects(new Error('queue down'));
    await expect(sendEmail(mail)).rejects.toThrow('queue down');
  });
});

describe('small auth helpers', () => {
  it('makes 6-digit codes, zero-padded', () => {
    const codes = Array.from({ length: 200 }, sixDigitCode);
    expect(codes.every((c) => /^\d{6}$/.test(c))).toBe(true);
    expect(new Set(codes).size).toBeGreaterThan(190);
  });

  it('compares digests in constant time and only equal-length hex', () => {
    expect(sameDigest(sha256('a'), sha256('a'))).toBe(true);
    expect(sameDigest(sha256('a'), sha256('b'))).toBe(false);
    expect(sameDigest('', '')).toBe(false);
  });

  it('maps tenant status to the sign-in refusal codes', () => {
    expect(tenantRefusal({ status: 1 })).toBeNull();
    expect(tenantRefusal({ status: 0 })).toBe('TENANT_PENDING');
    expect(tenantRefusal({ status: 2 })).toBe('TENANT_SUSPENDED');
    expect(tenantRefusal({ status: 3 })).toBe('TENANT_CANCELLED');
    expect(tenantRefusal({})).toBe('TENANT_INACTIVE');
    expect(tenantRefusal(undefined)).toBe('TENANT_INACTIVE');
  });
});
