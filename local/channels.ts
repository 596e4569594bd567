import { join } from 'node:path';
import type { ChannelType } from '#areas/channels/channel-types.ts';
import { ENDPOINT_SETTINGS, localEndpoint, type Endpoint } from '#areas/channels/senders/endpoints.ts';
import { PLATFORM_RATES, paceScale, type Rate } from '#areas/channels/senders/pacing.ts';
import { reply, type RawReply } from '#shared/http/responses.ts';
import { readJson, serialized, writeJson } from './json-file.ts';

/**
 * The local stand-in for the five chat platforms' send APIs (never deployed: only the local server's
 * `local-providers` group serves it). Every call the senders make is recorded exactly as it arrived
 * (method, URL, every header including the tokens, the raw body) with the answer given, and served at
 * `GET /_local/channels` (`DELETE` clears), as `/_local/outbox` serves e-mail. It answers as the
 * platform would: Slack `ok: true` with a `ts`, Telegram `ok: true` with the message, Meta a
 * `wamid`, Discord a message, the Bot Connector an activity id, the Microsoft identity platform a token.
 * On demand it fails like the platform: a recipient named `fail` gets that platform's refusal (not
 * retryable in substance), one named `unavailable` a 503.
 */
export interface ChannelCall {
  channel: ChannelType;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  responseStatus: number;
  response: unknown;
  at: string;
}

let file: string | null = null;
let memory: ChannelCall[] = [];
const exclusive = serialized();

/** Keeps the record in LOCAL_DATA_DIR/channels.json (the local server); without it, in memory (tests). */
export function recordChannelCallsIn(dataDir: string) {
  file = join(dataDir, 'channels.json');
}

export const channelCalls = (): ChannelCall[] => (file ? readJson<ChannelCall[]>(file, []) : [...memory]);

export const clearChannelCalls = () =>
  exclusive(() => {
    limits.clear();
    if (file) writeJson(file, []);
    else memory = [];
  });

const append = (call: ChannelCall) =>
  exclusive(() => {
    if (file) writeJson(file, [...readJson<ChannelCall[]>(file, []), call]);
    else memory.push(call);
  });

/** Points every sender at the stand-in on the server at `baseUrl` (local start), unless a setting already chose. */
export function useLocalChannelEndpoints(baseUrl: string) {
  for (const [name, setting] of Object.entries(ENDPOINT_SETTINGS) as [Endpoint, string][])
    process.env[setting] ||= localEndpoint(baseUrl, name);
}

export interface StandInRequest {
  path: string;
  headers: Record<string, string | undefined>;
  rawBody?: string;
  isBase64Encoded: boolean;
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> };
const ok = (body: unknown): Answer => ({ status: 200, body });

const bodyText = (req: StandInRequest) =>
  req.rawBody === undefined
    ? ''
    : req.isBase64Encoded
      ? Buffer.from(req.rawBody, 'base64').toString('utf8')
      : req.rawBody;

function jsonBody(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const bearer = (req: StandInRequest, scheme = 'Bearer') => {
  const auth = req.headers.authorization ?? '';
  return auth.startsWith(`${scheme} `) && auth.length > scheme.length + 1;
};
const unavailable: Answer = { status: 503, body: { message: 'Service Unavailable' } };
const seq = () => `${Date.now()}${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;

const answers = {
  slack(req: StandInRequest, body: Record<string, unknown>): Answer {
    if (!bearer(req)) return ok({ ok: false, error: 'not_authed' });
    if (typeof body.channel !== 'string' || !body.channel) return ok({ ok: false, error: 'channel_not_found' });
    if (body.channel === 'fail') return ok({ ok: false, error: 'channel_not_found' });
    if (body.channel === 'unavailable') return { status: 503, body: { ok: false, error: 'service_unavailable' } };
    const ts = `${Math.floor(Date.now() / 1000)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
    return ok({
      ok: true,
      channel: body.channel,
      ts,
      message: { type: 'message', text: body.text, ts, bot_id: 'B0LOCAL' },
    });
  },
  telegram(_req: StandInRequest, body: Record<string, unknown>, botPath: string): Answer {
    if (!/^bot\d+:[\w-]+$/.test(botPath))
      return { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } };
    const chat = body.chat_id;
    if (chat === 'fail')
      return { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } };
    if (chat === 'unavailable')
      return { status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } };
    if (typeof body.text !== 'string' || !body.text)
      return { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: message text is empty' } };
    return ok({
      ok: true,
      result: {
        message_id: Math.floor(Math.random() * 1e6),
        from: { id: Number(botPath.slice(3).split(':')[0]), is_bot: true, first_name: 'Local bot' },
        chat: { id: Number(chat) || chat, type: 'private' },
        date: Math.floor(Date.now() / 1000),
        text: body.text,
      },
    });
  },
  whatsapp(req: StandInRequest, body: Record<string, unknown>): Answer {
    const error = (status: number, message: string, code: number, type = 'OAuthException') => ({
      status,
      body: { error: { message, type, code, fbtrace_id: `Alocal${seq()}` } },
    });
    if (!bearer(req)) return error(401, 'An access token is required to request this resource.', 104);
    if (body.to === 'fail') return error(400, '(#131030) Recipient phone number not in allowed list', 131030);
    if (body.to === 'unavailable') return error(503, 'Service temporarily unavailable', 2, 'OAuthException');
    if (body.messaging_product !== 'whatsapp' || typeof body.to !== 'string')
      return error(400, '(#100) Invalid parameter', 100);
    return ok({
      messaging_product: 'whatsapp',
      contacts: [{ input: body.to, wa_id: body.to }],
      messages: [{ id: `wamid.LOCAL${seq()}` }],
    });
  },
  discord(req: StandInRequest, body: Record<string, unknown>, target: string, followUp: boolean): Answer {
    if (!followUp && !bearer(req, 'Bot')) return { status: 401, body: { message: '401: Unauthorized', code: 0 } };
    if (target === 'fail')
      return {
        status: 404,
        body: { message: followUp ? 'Unknown Webhook' : 'Unknown Channel', code: followUp ? 10015 : 10003 },
      };
    if (target === 'unavailable') return unavailable;
    if (typeof body.content !== 'string' || !body.content)
      return { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };
    return ok({
      id: seq(),
      type: 0,
      content: body.content,
      channel_id: followUp ? '0' : target,
      author: { id: '0', username: 'local-bot', bot: true },
    });
  },
  /** POST /applications/{id}/commands: 201 for a new command, 200 when one by that name is overwritten. */
  discordCommand(req: StandInRequest, body: Record<string, unknown>, applicationId: string): Answer {
    if (!bearer(req, 'Bot')) return { status: 401, body: { message: '401: Unauthorized', code: 0 } };
    if (
      typeof body.name !== 'string' ||
      !/^[-_\p{L}\p{N}]{1,32}$/u.test(body.name) ||
      typeof body.description !== 'string'
    )
      return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
    const known = commands.get(`${applicationId}:${body.name}`);
    const command = {
      id: known ?? seq(),
      application_id: applicationId,
      version: seq(),
      type: body.type ?? 1,
      name: body.name,
      description: body.description,
      options: body.options ?? [],
      default_member_permissions: null,
      dm_permission: true,
      nsfw: false,
    };
    commands.set(`${applicationId}:${body.name}`, command.id);
    return { status: known ? 200 : 201, body: command };
  },
  teams(req: StandInRequest, _body: Record<string, unknown>, conversation: string): Answer {
    if (!bearer(req)) return { status: 401, body: { message: 'Authorization has been denied for this request.' } };
    if (conversation === 'fail')
      return { status: 404, body: { error: { code: 'ConversationNotFound', message: 'Conversation not found.' } } };
    if (conversation === 'unavailable') return unavailable;
    return { status: 201, body: { id: `1:${seq()}` } };
  },
  teamsLogin(_req: StandInRequest, text: string): Answer {
    const form = new URLSearchParams(text);
    if (form.get('grant_type') !== 'client_credentials' || !form.get('client_id') || !form.get('client_secret'))
      return {
        status: 401,
        body: { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' },
      };
    return ok({
      token_type: 'Bearer',
      expires_in: 3599,
      ext_expires_in: 3599,
      access_token: `local-teams-token-${seq()}`,
    });
  },
};

/**
 * The platforms' rate limits as they enforce them: past a chat's (or a bot's) documented rate the
 * stand-in answers 429 the platform's way, with how long to wait. One send more than the burst is
 * tolerated (the platforms tolerate short bursts, and arrival times jitter); time runs at the pacing
 * scale, so a test's burst takes seconds.
 */
const limits = new Map<string, number>();
/** The Discord application commands registered so far (name -> id), as Discord keeps them. */
const commands = new Map<string, string>();

/** Milliseconds until this request would be allowed, or 0 (and it is counted). */
function overLimit(key: string, rate: Rate): number {
  const interval = 1000 / rate.perSecond / paceScale();
  const tolerance = rate.burst * interval;
  const now = Date.now();
  const tat = Math.max(limits.get(key) ?? now, now);
  if (tat - tolerance > now) return tat - tolerance - now;
  limits.set(key, tat + interval);
  return 0;
}

function limited(channel: ChannelType, bot: string, chat: string): number {
  const rates = PLATFORM_RATES[channel];
  return overLimit(`${channel}:${bot}:${chat}`, rates.chat) || overLimit(`${channel}:${bot}`, rates.bot);
}

/** The platform's 429 (Meta's rate-limit error) for a wait of `ms` real milliseconds. */
function tooManyRequests(channel: ChannelType, ms: number): Answer {
  const seconds = (ms * paceScale()) / 1000;
  const whole = String(Math.max(1, Math.ceil(seconds)));
  switch (channel) {
    case 'telegram':
      return {
        status: 429,
        body: {
          ok: false,
          error_code: 429,
          description: `Too Many Requests: retry after ${whole}`,
          parameters: { retry_after: Number(whole) },
        },
      };
    case 'slack':
      return { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': whole } };
    case 'discord': {
      const after = (Math.ceil(seconds * 1000) / 1000).toFixed(3);
      return {
        status: 429,
        body: { message: 'You are being rate limited.', retry_after: Number(after), global: false, code: 0 },
        headers: {
          'retry-after': whole,
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset-after': after,
          'x-ratelimit-scope': 'user',
        },
      };
    }
    case 'whatsapp':
      return {
        status: 400,
        body: {
          error: {
            message: '(#131056) (Business Account, Consumer Account) pair rate limit hit',
            type: 'OAuthException',
            code: 131056,
            error_data: {
              messaging_product: 'whatsapp',
              details:
                'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.',
            },
            fbtrace_id: `Alocal${seq()}`,
          },
        },
      };
    case 'teams':
      return {
        status: 429,
        body: { error: { code: 'TooManyRequests', message: 'Too many requests, retry later.' } },
        headers: { 'retry-after': whole },
      };
  }
}

/** Who the platform counts a call against: the bot (its credential) and the chat. */
function rateKeys(op: StandInOperation, req: StandInRequest, body: Record<string, unknown>): [string, string] | null {
  const auth = req.headers.authorization ?? '';
  switch (op.channel) {
    case 'telegram':
      return [op.botPath, String(body.chat_id)];
    case 'slack':
      return [auth, String(body.channel)];
    case 'whatsapp':
      return [auth, String(body.to)];
    case 'discord':
      return 'command' in op ? null : [op.followUp ? 'interactions' : auth, op.target];
    case 'teams':
      return 'login' in op ? null : [auth, op.conversation];
  }
}

export type StandInOperation =
  | { channel: 'slack' }
  | { channel: 'telegram'; botPath: string }
  | { channel: 'whatsapp' }
  | { channel: 'discord'; target: string; followUp: boolean }
  | { channel: 'discord'; command: string }
  | { channel: 'teams'; conversation: string }
  | { channel: 'teams'; login: true };

/** Answers one platform call as the platform would, and records it with its answer. */
export async function standIn(op: StandInOperation, req: StandInRequest): Promise<RawReply> {
  const text = bodyText(req);
  const body = jsonBody(text);
  const keys = rateKeys(op, req, body);
  const wait = keys ? limited(op.channel, keys[0], keys[1]) : 0;
  const answer: Answer = wait
    ? tooManyRequests(op.channel, wait)
    : op.channel === 'slack'
      ? answers.slack(req, body)
      : op.channel === 'telegram'
        ? answers.telegram(req, body, op.botPath)
        : op.channel === 'whatsapp'
          ? answers.whatsapp(req, body)
          : op.channel === 'discord'
            ? 'command' in op
              ? answers.discordCommand(req, body, op.command)
              : answers.discord(req, body, op.target, op.followUp)
            : 'login' in op
              ? answers.teamsLogin(req, text)
              : answers.teams(req, body, op.conversation);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = v;
  const host = headers.host ?? '127.0.0.1';
  await append({
    channel: op.channel,
    method: 'POST',
    url: `http://${host}${req.path}`,
    headers,
    body: text,
    responseStatus: answer.status,
    response: answer.body,
    at: new Date().toISOString(),
  });
  return reply.raw('application/json', JSON.stringify(answer.body), {
    status: answer.status,
    headers: { 'cache-control': 'no-store', ...answer.headers },
  });
}
