import { createHmac, generateKeyPairSync, sign } from 'node:crypto';

/**
 * Signs inbound requests the way each chat platform does, written independently of
 * areas/connector/signatures.ts so tests check the scheme rather than echo the verifier.
 */
export const slackHeaders = (secret: string, body: string, timestamp: number) => ({
  'x-slack-request-timestamp': String(timestamp),
  'x-slack-signature': `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`,
});

export const teamsHeaders = (securityToken: string, body: string) => ({
  authorization: `HMAC ${createHmac('sha256', Buffer.from(securityToken, 'base64')).update(body).digest('base64')}`,
});

export const whatsAppHeaders = (appSecret: string, body: string) => ({
  'x-hub-signature-256': `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`,
});

export const telegramHeaders = (secretToken: string) => ({ 'x-telegram-bot-api-secret-token': secretToken });

/** A Discord application's key pair: the public key as the developer portal shows it (hex of the raw 32 bytes). */
export function discordKeys() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return {
    publicKeyHex: raw.toString('hex'),
    headers: (body: string, timestamp: string) => ({
      'x-signature-timestamp': timestamp,
      'x-signature-ed25519': sign(null, Buffer.from(timestamp + body), privateKey).toString('hex'),
    }),
  };
}
