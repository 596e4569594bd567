import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  verifyDiscord,
  verifyEd25519,
  verifySlack,
  verifyTeams,
  verifyTelegram,
  verifyWhatsApp,
} from '#areas/channels/signatures.ts';
import {
  discordKeys,
  slackHeaders,
  teamsHeaders,
  telegramHeaders,
  whatsAppHeaders,
} from '#test/support/channel-signing.ts';

const body = JSON.stringify({ type: 'event_callback', event_id: 'Ev0PV52K25', event: { type: 'message', text: 'hi' } });
const tamper = (s: string) => s.replace('hi', 'ho');
/** A signature of the right shape that breaks the length timingSafeEqual needs, and one that is just short. */
const oddLengths = ['ab', `${'a'.repeat(63)}`, `${'a'.repeat(66)}`];

describe('Slack v0 signature', () => {
  // The worked example in Slack's "Verifying requests from Slack"
  // (api.slack.com/authentication/verifying-requests-from-slack): secret, timestamp, slash-command body, signature.
  const DOC = {
    secret: '8f742231b10e8888abcd99yyyzzz85a5',
    timestamp: 1531420618,
    body: 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    signature: 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
  };
  const docHeaders = { 'X-Slack-Request-Timestamp': String(DOC.timestamp), 'X-Slack-Signature': DOC.signature };
  const secret = 'slack-signing-secret';
  const now = 1_760_000_000;

  it("accepts Slack's documented example (headers in any letter case) within the window", () => {
    expect(verifySlack(DOC.body, docHeaders, DOC.secret, DOC.timestamp + 60)).toBe(true);
    expect(verifySlack(Buffer.from(DOC.body), docHeaders, DOC.secret, DOC.timestamp)).toBe(true);
  });

  it('refuses the documented example once it is more than five minutes old (a replay), or from the future', () => {
    expect(verifySlack(DOC.body, docHeaders, DOC.secret, DOC.timestamp + 300)).toBe(true);
    expect(verifySlack(DOC.body, docHeaders, DOC.secret, DOC.timestamp + 301)).toBe(false);
    expect(verifySlack(DOC.body, docHeaders, DOC.secret, DOC.timestamp - 301)).toBe(false);
  });

  it('refuses a tampered body, a wrong secret, a missing header, a malformed or odd-length signature', () => {
    const h = slackHeaders(secret, body, now);
    expect(verifySlack(body, h, secret, now)).toBe(true);
    expect(verifySlack(tamper(body), h, secret, now)).toBe(false);
    expect(verifySlack(body, h, 'another-secret', now)).toBe(false);
    expect(verifySlack(body, { 'x-slack-signature': h['x-slack-signature'] }, secret, now)).toBe(false);
    expect(verifySlack(body, { 'x-slack-request-timestamp': String(now) }, secret, now)).toBe(false);
    expect(verifySlack(body, { ...h, 'x-slack-request-timestamp': `${now}.5` }, secret, now)).toBe(false);
    expect(
      verifySlack(body, { ...h, 'x-slack-signature': h['x-slack-signature'].replace('v0=', 'v1=') }, secret, now),
    ).toBe(false);
    for (const sig of oddLengths)
      expect(() => verifySlack(body, { ...h, 'x-slack-signature': `v0=${sig}` }, secret, now)).not.toThrow();
    for (const sig of oddLengths)
      expect(verifySlack(body, { ...h, 'x-slack-signature': `v0=${sig}` }, secret, now)).toBe(false);
    // The timestamp is part of what is signed: moving it (to dodge the window) breaks the signature.
    expect(verifySlack(body, { ...h, 'x-slack-request-timestamp': String(now + 1) }, secret, now)).toBe(false);
  });
});

describe('Teams outgoing-webhook HMAC', () => {
  // Teams shows the security token once, as base64 of a random key; it publishes no test vector.
  const token = randomBytes(32).toString('base64');

  it('accepts the HMAC keyed with the base64-decoded token, not with the token text', () => {
    expect(verifyTeams(body, teamsHeaders(token, body), token)).toBe(true);
    const keyedWithText = `HMAC ${createHmac('sha256', token).update(body).digest('base64')}`;
    expect(verifyTeams(body, { authorization: keyedWithText }, token)).toBe(false);
  });

  it('refuses a tampered body, a wrong token, a missing or non-HMAC header, and odd lengths without throwing', () => {
    const h = teamsHeaders(token, body);
    expect(verifyTeams(tamper(body), h, token)).toBe(false);
    expect(verifyTeams(body, h, randomBytes(32).toString('base64'))).toBe(false);
    expect(verifyTeams(body, {}, token)).toBe(false);
    expect(verifyTeams(body, { authorization: h.authorization.replace('HMAC', 'Bearer') }, token)).toBe(false);
    expect(verifyTeams(body, { authorization: 'HMAC AAAA' }, token)).toBe(false);
    expect(verifyTeams(body, { authorization: `HMAC ${Buffer.alloc(40).toString('base64')}` }, token)).toBe(false);
    expect(verifyTeams(body, h, '')).toBe(false);
  });
});

describe('WhatsApp (Meta) X-Hub-Signature-256', () => {
  // Meta publishes no vector for X-Hub-Signature-256; GitHub documents the identical scheme (same header,
  // `sha256=` + hex HMAC-SHA256 of the raw body) with this example in "Validating webhook deliveries"
  // (docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries).
  const GITHUB_DOC = {
    secret: "It's a Secret to Everybody",
    body: 'Hello, World!',
    signature: 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
  };
  const secret = 'meta-app-secret';

  it('accepts the documented example of the scheme', () => {
    expect(verifyWhatsApp(GITHUB_DOC.body, { 'X-Hub-Signature-256': GITHUB_DOC.signature }, GITHUB_DOC.secret)).toBe(
      true,
    );
  });

  it('refuses a tampered body, a wrong secret, a missing header, the old sha1 header and odd lengths', () => {
    const h = whatsAppHeaders(secret, body);
    expect(verifyWhatsApp(body, h, secret)).toBe(true);
    expect(verifyWhatsApp(tamper(body), h, secret)).toBe(false);
    expect(verifyWhatsApp(body, h, 'wrong')).toBe(false);
    expect(verifyWhatsApp(body, {}, secret)).toBe(false);
    expect(verifyWhatsApp(body, { 'x-hub-signature': `sha1=${'a'.repeat(40)}` }, secret)).toBe(false);
    for (const sig of oddLengths)
      expect(verifyWhatsApp(body, { 'x-hub-signature-256': `sha256=${sig}` }, secret)).toBe(false);
  });
});

describe('Telegram secret token', () => {
  const token = 'tg_Secret-123';

  it('accepts the configured token and refuses another, a prefix, an empty or missing header', () => {
    expect(verifyTelegram(body, telegramHeaders(token), token)).toBe(true);
    expect(verifyTelegram(body, { 'X-Telegram-Bot-Api-Secret-Token': token }, token)).toBe(true);
    expect(verifyTelegram(body, telegramHeaders('tg_Secret-124'), token)).toBe(false);
    expect(verifyTelegram(body, telegramHeaders('tg_Secret'), token)).toBe(false);
    expect(verifyTelegram(body, telegramHeaders(''), token)).toBe(false);
    expect(verifyTelegram(body, {}, token)).toBe(false);
    expect(verifyTelegram(body, telegramHeaders(''), '')).toBe(false);
  });
});

describe('Discord Ed25519', () => {
  it('verifies RFC 8032 section 7.1 TEST 2 (Discord publishes no vector; this checks the Ed25519 primitive and key import)', () => {
    const pub = '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c';
    const sig =
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00';
    expect(verifyEd25519(pub, Buffer.from('72', 'hex'), sig)).toBe(true);
    expect(verifyEd25519(pub, Buffer.from('73', 'hex'), sig)).toBe(false);
  });

  it('accepts timestamp + body signed with the application key; refuses tampering, another key, missing headers', () => {
    const app = discordKeys();
    const other = discordKeys();
    const ping = JSON.stringify({ id: '1234567890', type: 1, application_id: '42', token: 'tok', version: 1 });
    const h = app.headers(ping, '1700000000');
    const at = 1_700_000_000;
    expect(verifyDiscord(ping, h, app.publicKeyHex, at)).toBe(true);
    expect(verifyDiscord(ping.replace('42', '43'), h, app.publicKeyHex, at)).toBe(false);
    expect(verifyDiscord(ping, { ...h, 'x-signature-timestamp': '1700000001' }, app.publicKeyHex, at)).toBe(false);
    expect(verifyDiscord(ping, h, other.publicKeyHex, at)).toBe(false);
    expect(verifyDiscord(ping, { 'x-signature-ed25519': h['x-signature-ed25519'] }, app.publicKeyHex, at)).toBe(false);
    expect(verifyDiscord(ping, { 'x-signature-timestamp': '1700000000' }, app.publicKeyHex, at)).toBe(false);
  });

  it('refuses a genuine signature whose timestamp is more than five minutes from now (a replay), either way', () => {
    const app = discordKeys();
    const ping = JSON.stringify({ id: '1234567890', type: 1, application_id: '42' });
    const signedAt = 1_700_000_000;
    const h = app.headers(ping, String(signedAt));
    expect(verifyDiscord(ping, h, app.publicKeyHex, signedAt + 300)).toBe(true);
    expect(verifyDiscord(ping, h, app.publicKeyHex, signedAt - 300)).toBe(true);
    expect(verifyDiscord(ping, h, app.publicKeyHex, signedAt + 301)).toBe(false);
    expect(verifyDiscord(ping, h, app.publicKeyHex, signedAt - 301)).toBe(false);
    expect(verifyDiscord(ping, h, app.publicKeyHex, signedAt + 30 * 86_400)).toBe(false);
    // Without a clock given, the real one: a signature from 2023 is long stale.
    expect(verifyDiscord(ping, h, app.publicKeyHex)).toBe(false);
    const now = app.headers(ping, String(Math.floor(Date.now() / 1000)));
    expect(verifyDiscord(ping, now, app.publicKeyHex)).toBe(true);
  });

  it('refuses a timestamp that is not whole unix seconds, even when genuinely signed', () => {
    const app = discordKeys();
    const at = 1_700_000_000;
    for (const ts of [`${at}.5`, ` ${at}`, `${at}\n`, '0x6553f100', '1e9'])
      expect(verifyDiscord(body, app.headers(body, ts), app.publicKeyHex, at)).toBe(false);
  });

  it('answers false, never throws, for malformed keys and signatures', () => {
    const app = discordKeys();
    const at = 1_700_000_000;
    const h = app.headers(body, String(at));
    for (const key of ['', 'zz', 'ab'.repeat(31), `${'00'.repeat(32)}`])
      expect(() => verifyDiscord(body, h, key, at)).not.toThrow();
    expect(verifyDiscord(body, h, 'ab'.repeat(31), at)).toBe(false);
    for (const sig of ['', 'ab', 'g'.repeat(128), 'a'.repeat(126), 'a'.repeat(130)])
      expect(verifyDiscord(body, { ...h, 'x-signature-ed25519': sig }, app.publicKeyHex, at)).toBe(false);
  });
});
