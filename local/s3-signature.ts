import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Signature V4 of a presigned S3 URL, checked as S3 checks it (s3rver checks only V2): the
 * canonical request rebuilt from the method, the path as sent, every query parameter but the
 * signature, and the headers the URL says it signed; then its expiry. Answers null when the URL
 * holds, else S3's error code and message.
 */
export interface Refusal {
  code: 'SignatureDoesNotMatch' | 'AccessDenied' | 'AuthorizationQueryParametersError';
  message: string;
}

const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s).digest();
const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));

/** `20261202T063322Z` as epoch milliseconds, NaN when malformed. */
function amzTime(v: string) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(v);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : Number.NaN;
}

export function checkPresigned(
  req: { method: string; url: string; headers: IncomingHttpHeaders },
  secretOf: (accessKeyId: string) => string | undefined,
  now = Date.now(),
): Refusal | null {
  const [path = '/', rawQuery = ''] = req.url.split(/\?(.*)/s);
  const pairs = rawQuery
    .split('&')
    .filter(Boolean)
    .map((p) => {
      const at = p.indexOf('=');
      return at < 0 ? [decode(p), ''] : [decode(p.slice(0, at)), decode(p.slice(at + 1))];
    }) as [string, string][];
  const q = new Map(pairs);
  const [accessKeyId = '', day = '', region = '', service = '', terminator = ''] = (
    q.get('X-Amz-Credential') ?? ''
  ).split('/');
  const date = q.get('X-Amz-Date') ?? '';
  const expires = Number(q.get('X-Amz-Expires'));
  const signed = (q.get('X-Amz-SignedHeaders') ?? '').split(';').filter(Boolean);
  const given = q.get('X-Amz-Signature') ?? '';
  const secret = secretOf(accessKeyId);
  if (
    q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' ||
    !date ||
    !given ||
    !signed.includes('host') ||
    terminator !== 'aws4_request'
  )
    return {
      code: 'AuthorizationQueryParametersError',
      message: 'Query-string authentication version 4 requires the X-Amz-* parameters',
    };
  if (!secret)
    return { code: 'AccessDenied', message: 'The AWS Access Key Id you provided does not exist in our records.' };
  const canonical = [
    req.method,
    path,
    pairs
      .filter(([k]) => k !== 'X-Amz-Signature')
      .map(([k, v]) => [rfc3986(k), rfc3986(v)])
      .sort(([a, x], [b, y]) => (a! < b! ? -1 : a! > b! ? 1 : x! < y! ? -1 : x! > y! ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join('&'),
    ...signed.map(
      (h) =>
        `${h}:${String(req.headers[h] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}`,
    ),
    '',
    signed.join(';'),
    q.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD',
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', date, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
  const expected = Buffer.from(createHmac('sha256', key).update(toSign).digest('hex'));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
    return {
      code: 'SignatureDoesNotMatch',
      message: 'The request signature we calculated does not match the signature you provided.',
    };
  const signedAt = amzTime(date);
  if (!Number.isFinite(expires) || !(now <= signedAt + expires * 1000))
    return { code: 'AccessDenied', message: 'Request has expired' };
  return null;
}
