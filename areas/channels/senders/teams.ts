import type { OutboundMessage, SendResult, TeamsConnection, TeamsConversationReference } from '../connection.ts';
import { ChannelSendError, call, refused } from './send-error.ts';
import { endpoint } from './endpoints.ts';

/**
 * The Bot Connector API: the reply activity goes to the conversation at its serviceUrl
 * (POST {serviceUrl}/v3/conversations/{id}/activities[/{replyToId}]) with a Bot Framework token from
 * the Microsoft identity platform (client credentials of the bot's app id and password); a proactive
 * message goes the same way, to the conversation of the reference an activity left. An
 * outgoing webhook alone can answer only in its HTTP response, within 5 seconds; a queued answer
 * needs the bot registration.
 */
const SCOPE = 'https://api.botframework.com/.default';
/** Hosts a Bot Framework serviceUrl may have; anything else is refused rather than sent a bearer token. */
const SERVICE_HOSTS =
  /(^|\.)(trafficmanager\.net|botframework\.com|botframework\.azure\.us|teams\.microsoft\.(com|us))$/;

const tokens = new Map<string, { token: string; until: number }>();

async function botToken(connection: TeamsConnection): Promise<string> {
  const authority = connection.settings.azureTenantId || 'botframework.com';
  const cacheKey = `${connection.tenantId}:${connection.id}:${connection.settings.appId}:${authority}`;
  const cached = tokens.get(cacheKey);
  if (cached && cached.until > Date.now()) return cached.token;
  const answer = await call('teams', `${endpoint('teamsLogin')}/${encodeURIComponent(authority)}/oauth2/v2.0/token`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: connection.settings.appId,
      client_secret: connection.credentials.appPassword,
      scope: SCOPE,
    }).toString(),
  });
  const token = answer.body.access_token;
  if (answer.status !== 200 || typeof token !== 'string') {
    const e = answer.body.error_description ?? answer.body.error;
    throw refused('teams', answer, typeof e === 'string' ? e.split('\r\n')[0] : undefined);
  }
  // Renew five minutes early; Microsoft's tokens last an hour.
  const seconds = typeof answer.body.expires_in === 'number' ? answer.body.expires_in : 3600;
  tokens.set(cacheKey, { token, until: Date.now() + Math.max(0, seconds - 300) * 1000 });
  return token;
}

function serviceBase(connection: TeamsConnection, message: OutboundMessage): string {
  const override = endpoint('teamsService');
  const given = message.serviceUrl ?? connection.settings.serviceUrl;
  // The serviceUrl replaced is named in the path, so the stand-in's record shows where a call was headed.
  if (override) return given ? `${override}/service/${encodeURIComponent(given)}` : override;
  let url: URL | null = null;
  try {
    url = given ? new URL(given) : null;
  } catch {
    url = null;
  }
  if (url?.protocol !== 'https:' || !SERVICE_HOSTS.test(url.hostname))
    throw new ChannelSendError('teams', null, 'no Bot Framework serviceUrl for this conversation', false);
  return url.href.replace(/\/+$/, '');
}

/**
 * A proactive activity addresses itself as the Bot Framework SDKs' continueConversation does: from
 * the bot, to the user, in the conversation (with the user's Entra tenant, which Teams requires to
 * route a message the user did not just prompt).
 */
const continuation = (r: TeamsConversationReference) => ({
  serviceUrl: r.serviceUrl,
  channelId: r.channelId,
  from: r.bot,
  recipient: r.user,
  conversation: r.conversation,
  ...(r.conversation.tenantId ? { channelData: { tenant: { id: r.conversation.tenantId } } } : {}),
});

export async function sendTeams(connection: TeamsConnection, message: OutboundMessage): Promise<SendResult> {
  const base = serviceBase(connection, message);
  const conversation = encodeURIComponent(message.recipient);
  const url = message.threadId
    ? `${base}/v3/conversations/${conversation}/activities/${encodeURIComponent(message.threadId)}`
    : `${base}/v3/conversations/${conversation}/activities`;
  const answer = await call('teams', url, {
    headers: { authorization: `Bearer ${await botToken(connection)}`, 'content-type': 'application/json' },
    pace: { platform: 'teams', bot: connection.id, chat: message.recipient },
    body: JSON.stringify({
      type: 'message',
      text: message.text,
      textFormat: 'plain',
      ...(message.threadId ? { replyToId: message.threadId } : {}),
      ...(message.teamsReference ? continuation(message.teamsReference) : {}),
    }),
  });
  if (answer.status === 401) tokens.clear();
  if (answer.status < 200 || answer.status > 299) {
    const err = answer.body.error as { message?: unknown } | undefined;
    throw refused('teams', answer, typeof err?.message === 'string' ? err.message : undefined);
  }
  return { platformMessageId: String(answer.body.id ?? '') };
}

/** Forgets cached Bot Framework tokens (tests; a rotated app password). */
export const forgetTeamsTokens = () => tokens.clear();
