import type { OutgoingEmail } from './ports.ts';

/**
 * A raw MIME message (RFC 2045-2049) for what SES's simple form cannot carry: an iCalendar
 * invitation. The calendar goes twice, as clients expect: a `text/calendar; method=...`
 * alternative beside the text and HTML (Outlook and Gmail show their accept buttons from it) and an
 * `invite.ics` attachment (what Apple Mail and others open). Every part is base64, so no line of
 * the content can end a header or a boundary.
 */
const CRLF = '\r\n';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64').replace(/.{76}/g, `$&${CRLF}`);

/** RFC 2047 encoded word: a subject or name in UTF-8 stays one header line whatever it holds. */
const encodedWord = (s: string) => `=?UTF-8?B?${Buffer.from(s, 'utf8').toString('base64')}?=`;

const part = (headers: string[], body: string) => `${headers.join(CRLF)}${CRLF}${CRLF}${body}`;

export function rawMimeMessage(from: string, mail: OutgoingEmail, boundarySeed: string = crypto.randomUUID()): string {
  const mixed = `mixed-${boundarySeed}`;
  const alt = `alt-${boundarySeed}`;
  const invite = mail.invitation;
  const alternatives = [
    part(['Content-Type: text/plain; charset=UTF-8', 'Content-Transfer-Encoding: base64'], b64(mail.text)),
    part(['Content-Type: text/html; charset=UTF-8', 'Content-Transfer-Encoding: base64'], b64(mail.html)),
    ...(invite
      ? [
          part(
            [
              `Content-Type: text/calendar; charset=UTF-8; method=${invite.method}`,
              'Content-Transfer-Encoding: base64',
            ],
            b64(invite.ics),
          ),
        ]
      : []),
  ];
  const altBody = `${alternatives.map((p) => `--${alt}${CRLF}${p}${CRLF}`).join('')}--${alt}--`;
  const parts = [
    part([`Content-Type: multipart/alternative; boundary="${alt}"`], altBody),
    ...(invite
      ? [
          part(
            [
              'Content-Type: application/ics; name="invite.ics"',
              'Content-Disposition: attachment; filename="invite.ics"',
              'Content-Transfer-Encoding: base64',
            ],
            b64(invite.ics),
          ),
        ]
      : []),
  ];
  const headers = [
    `From: ${from}`,
    `To: ${mail.to.join(', ')}`,
    `Subject: ${encodedWord(mail.subject)}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${mixed}"`,
  ];
  return `${headers.join(CRLF)}${CRLF}${CRLF}${parts.map((p) => `--${mixed}${CRLF}${p}${CRLF}`).join('')}--${mixed}--${CRLF}`;
}
