import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '#shared/platform/config.ts';
import { s3 } from '#shared/platform/s3.ts';

/**
 * Screenshots live in the media bucket under their tenant, under a prefix the bucket expires after
 * a day (lib/data.ts), and are handed out as a presigned GET: a link that stops working after
 * SCREENSHOT_LINK_SECONDS and needs no route of its own.
 */
export const SCREENSHOT_PREFIX = 'browser-shots/';
export const SCREENSHOT_LINK_SECONDS = 600;

export const screenshotKey = (tenantId: string, id: string) => `${SCREENSHOT_PREFIX}${tenantId}/${id}.png`;

export async function saveScreenshot(tenantId: string, png: Buffer) {
  const key = screenshotKey(tenantId, crypto.randomUUID());
  await s3().send(new PutObjectCommand({ Bucket: config.mediaBucket, Key: key, Body: png, ContentType: 'image/png' }));
  const url = await getSignedUrl(
    s3(),
    new GetObjectCommand({
      Bucket: config.mediaBucket,
      Key: key,
      ResponseContentType: 'image/png',
      ResponseContentDisposition: 'inline; filename="screenshot.png"',
    }),
    { expiresIn: SCREENSHOT_LINK_SECONDS },
  );
  return { url, expiresAt: new Date(Date.now() + SCREENSHOT_LINK_SECONDS * 1000).toISOString() };
}
