import { SendEmailCommand, SendRawEmailCommand, SESClient } from '@aws-sdk/client-ses';
import { mockClient } from 'aws-sdk-client-mock';
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { createSesMailer } from '#shared/platform/aws-mailer.ts';
import { rawMimeMessage } from '#shared/platform/mime.ts';

/** An invitation e-mail as SES receives it: a raw MIME message whose calendar parts a client can read. */
const ICS = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//test//EN',
  'METHOD:REQUEST',
  'BEGIN:VEVENT',
  'UID:a1@manage-schedule',
  'SEQUENCE:1',
  'DTSTAMP:20270101T000000Z',
  'DTSTART:20270329T070000Z',
  'DTEND:20270329T073000Z',
  'SUMMARY:Consultations: Ann',
  'END:VEVENT',
  'END:VCALENDAR',
].join('\r\n');
const MAIL = {
  to: ['ann@example.com'],
  subject: 'Appointment confirmed: Beratung, 09:00 – 09:30',
  text: 'Hello Ann',
  html: '<p>Hello Ann</p>',
  invitation: { method: 'REQUEST' as const, ics: ICS },
};

/** The parts of a multipart body by its boundary, each as headers and decoded body. */
function parts(body: string, boundary: string) {
  return body
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((p) => {
      const [head, ...rest] = p.replace(/^\r\n/, '').split('\r\n\r\n');
      const raw = rest.join('\r\n\r\n').replace(/\r\n$/, '');
      const b64 = /Content-Transfer-Encoding: base64/i.test(head!);
      return { head: head!, body: b64 ? Buffer.from(raw.replace(/\r\n/g, ''), 'base64').toString('utf8') : raw };
    });
}

describe('raw MIME invitation', () => {
  it('carries text, HTML and the calendar as an alternative with its method, and invite.ics as an attachment', () => {
    const msg = rawMimeMessage('no-reply@saas.local', MAIL, 'b1');
    const [headers, ...body] = msg.split('\r\n\r\n');
    expect(headers).toContain('Content-Type: multipart/mixed; boundary="mixed-b1"');
    expect(headers).toContain('To: ann@example.com');
    const subject = /^Subject: =\?UTF-8\?B\?([^?]+)\?=$/m.exec(headers!)?.[1];
    expect(Buffer.from(subject!, 'base64').toString('utf8')).toBe(MAIL.subject);
    const outer = parts(body.join('\r\n\r\n'), 'mixed-b1');
    expect(outer).toHaveLength(2);
    const inner = parts(outer[0]!.body, 'alt-b1');
    expect(inner.map((p) => /Content-Type: ([^\r\n]+)/.exec(p.head)?.[1])).toEqual([
      'text/plain; charset=UTF-8',
      'text/html; charset=UTF-8',
      'text/calendar; charset=UTF-8; method=REQUEST',
    ]);
    expect(inner.map((p) => p.body)).toEqual(['Hello Ann', '<p>Hello Ann</p>', ICS]);
    expect(outer[1]!.head).toContain('Content-Disposition: attachment; filename="invite.ics"');
    const cal = new ICAL.Component(ICAL.parse(outer[1]!.body));
    expect(cal.getFirstPropertyValue('method')).toBe('REQUEST');
    expect(new ICAL.Event(cal.getFirstSubcomponent('vevent')!).uid).toBe('a1@manage-schedule');
  });

  it('keeps a subject with line breaks on one header line', () => {
    const msg = rawMimeMessage('no-reply@saas.local', { ...MAIL, subject: 'Hi\r\nBcc: evil@example.com' }, 'b2');
    const headers = msg.split('\r\n\r\n')[0]!;
    expect(headers).not.toMatch(/^Bcc:/m);
    expect(headers.split('\r\n')).toHaveLength(5);
  });

  it('goes out through SendRawEmail from the configured sender; a mail without one through SendEmail', async () => {
    const ses = mockClient(SESClient);
    ses.on(SendRawEmailCommand).resolves({ MessageId: 'm1' });
    ses.on(SendEmailCommand).resolves({ MessageId: 'm2' });
    const mailer = await createSesMailer(new SESClient({ region: 'us-east-1' }));
    await mailer.send(MAIL);
    const { invitation: _, ...plain } = MAIL;
    await mailer.send(plain);
    const raw = ses.commandCalls(SendRawEmailCommand);
    expect(raw).toHaveLength(1);
    expect(raw[0]!.args[0].input).toMatchObject({ Source: 'no-reply@saas.local', Destinations: ['ann@example.com'] });
    const data = Buffer.from(raw[0]!.args[0].input.RawMessage!.Data!).toString('utf8');
    expect(data).toContain('method=REQUEST');
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(1);
    ses.restore();
  });
});
