import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it } from 'vitest';
import { config } from '#shared/platform/config.ts';
import { s3 } from '#shared/platform/s3.ts';
import { useKnowledgeStandIns } from '#test/support/knowledge.ts';

/**
 * The local S3 checks a presigned URL's signature and expiry as S3 does, so a test can see a
 * tampered or stale link fail; the SDK's own signed calls work as before.
 */
useKnowledgeStandIns();

const Bucket = () => config.mediaBucket;
async function putObject(Key: string, Body: string) {
  await s3().send(new PutObjectCommand({ Bucket: Bucket(), Key, Body, ContentType: 'text/plain' }));
}
const presignGet = (Key: string, opts: { expiresIn?: number; signingDate?: Date } = {}) =>
  getSignedUrl(s3(), new GetObjectCommand({ Bucket: Bucket(), Key }), { expiresIn: 60, ...opts });

const get = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
};

describe('the local S3 and presigned URLs', () => {
  it('serves a presigned GET as signed', async () => {
    await putObject('presign/a.txt', 'object a');
    expect(await get(await presignGet('presign/a.txt'))).toEqual({ status: 200, text: 'object a' });
  });

  it('refuses a tampered signature, key or query with 403 SignatureDoesNotMatch', async () => {
    await putObject('presign/b.txt', 'object b');
    await putObject('presign/c.txt', 'object c');
    const url = new URL(await presignGet('presign/b.txt'));
    const sig = url.searchParams.get('X-Amz-Signature')!;
    const flipped = new URL(url);
    flipped.searchParams.set('X-Amz-Signature', `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`);
    const otherKey = new URL(url.toString().replace('presign/b.txt', 'presign/c.txt'));
    const longer = new URL(url);
    longer.searchParams.set('X-Amz-Expires', '604800');
    for (const tampered of [flipped, otherKey, longer]) {
      const res = await get(tampered.toString());
      expect(res, tampered.toString()).toAnswer(403);
      expect(res.text).toContain('SignatureDoesNotMatch');
    }
  });

  it('refuses an expired link and an unsigned request with 403', async () => {
    await putObject('presign/d.txt', 'object d');
    const stale = await presignGet('presign/d.txt', { expiresIn: 60, signingDate: new Date(Date.now() - 120_000) });
    const expired = await get(stale);
    expect(expired).toAnswer(403);
    expect(expired.text).toContain('Request has expired');
    const unsigned = new URL(stale);
    unsigned.search = '';
    expect(await get(unsigned.toString())).toAnswer(403);
  });

  it('refuses a presigned PUT sent with another content type than it was signed for', async () => {
    const url = await getSignedUrl(
      s3(),
      new PutObjectCommand({ Bucket: Bucket(), Key: 'presign/e.png', ContentType: 'image/png', ContentLength: 3 }),
      { expiresIn: 60, signableHeaders: new Set(['content-type', 'content-length']) },
    );
    const put = (type: string) => fetch(url, { method: 'PUT', headers: { 'content-type': type }, body: 'abc' });
    expect((await put('text/html')).status).toBe(403);
    expect((await put('image/png')).status).toBe(200);
  });
});
