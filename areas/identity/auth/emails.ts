import { config } from '#shared/platform/config.ts';
import type { OutgoingEmail } from '#shared/platform/ports.ts';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// No user-supplied text in these mails: they go to whatever address a registration names.
const greeting = 'Hello,';

export function verificationEmail(to: string, code: string): OutgoingEmail {
  return {
    to: [to],
    subject: 'Your verification code',
    text: [
      greeting,
      '',
      `Your e-mail verification code is ${code}. It expires in 15 minutes.`,
      '',
      'If you did not create an account, ignore this message.',
    ].join('\n'),
    html: [
      `<p>${escapeHtml(greeting)}</p>`,
      `<p>Your e-mail verification code is <strong>${code}</strong>. It expires in 15 minutes.</p>`,
      '<p>If you did not create an account, ignore this message.</p>',
    ].join(''),
  };
}

/** Where the reset link points: `PASSWORD_RESET_URL` (the web app's page), else the public base URL. */
const resetLink = (email: string, token: string) => {
  const url = new URL(process.env.PASSWORD_RESET_URL || `${config.publicBaseUrl}/reset-password`);
  url.searchParams.set('email', email);
  url.searchParams.set('token', token);
  return url.toString();
};

export function passwordResetEmail(to: string, token: string): OutgoingEmail {
  const link = resetLink(to, token);
  return {
    to: [to],
    subject: 'Reset your password',
    text: [
      greeting,
      '',
      'Open this link to choose a new password (valid for 30 minutes):',
      link,
      '',
      `Or enter this reset code: ${token}`,
      '',
      'If you did not ask for this, ignore this message; your password stays as it is.',
    ].join('\n'),
    html: [
      `<p>${escapeHtml(greeting)}</p>`,
      `<p><a href="${escapeHtml(link)}">Choose a new password</a> (valid for 30 minutes).</p>`,
      `<p>Or enter this reset code: <code>${token}</code></p>`,
      '<p>If you did not ask for this, ignore this message; your password stays as it is.</p>',
    ].join(''),
  };
}
