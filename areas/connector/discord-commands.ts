import type { Principal } from '#shared/auth/access-token.ts';
import {
  call,
  ChannelSendError,
  channelById,
  ConnectionUnusableError,
  endpoint,
  refused,
  resolveConnection,
} from '#areas/channels/for-connector.ts';
import { commitChange } from '#shared/data/commit.ts';
import { conflict, notFound } from '#shared/http/errors.ts';
import { commandsNotSupported, platformRefused } from './errors.ts';

/**
 * Discord's HTTP interactions endpoint receives slash commands and components, never ordinary channel
 * messages (those need the Gateway websocket, a long-lived connection Lambda does not hold). So a
 * Discord user talks to the agent through `/ask question:…`, registered here as a global command of
 * the connection's application (POST /applications/{id}/commands with the bot token; Discord
 * overwrites a command of the same name, so registering again is safe).
 */
export const ASK_COMMAND = {
  name: 'ask',
  type: 1,
  description: 'Ask the assistant a question',
  options: [{ type: 3, name: 'question', description: 'Your question', required: true, max_length: 4000 }],
} as const;

export async function registerDiscordCommands(tenantId: string, channelId: string, actor: Principal) {
  const found = await channelById(channelId);
  if (!found || found.tenantId !== tenantId) throw notFound('Channel connection');
  const { id, type, settings, secretRefs } = found.connection;
  if (type !== 'discord') throw commandsNotSupported();
  let connection: Awaited<ReturnType<typeof resolveConnection>>;
  try {
    connection = await resolveConnection(tenantId, { id, type, settings, secretRefs });
  } catch (err) {
    if (err instanceof ConnectionUnusableError) throw conflict(err.message);
    throw err;
  }
  if (connection.type !== 'discord') throw commandsNotSupported();
  const applicationId = connection.settings.applicationId;
  const url = `${endpoint('discord')}/applications/${encodeURIComponent(applicationId)}/commands`;
  let answer: Awaited<ReturnType<typeof call>>;
  try {
    answer = await call('discord', url, {
      headers: { authorization: `Bot ${connection.credentials.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(ASK_COMMAND),
    });
    if (answer.status !== 200 && answer.status !== 201)
      throw refused('discord', answer, typeof answer.body.message === 'string' ? answer.body.message : undefined);
  } catch (err) {
    if (err instanceof ChannelSendError) throw platformRefused(err.message);
    throw err;
  }
  const command = { commandId: String(answer.body.id ?? ''), name: ASK_COMMAND.name, applicationId };
  await commitChange([], {
    tenantId,
    actor,
    entityType: 'ChannelConnection',
    entityId: channelId,
    action: 'registerCommand',
    changes: command,
  });
  return { ...command, registeredAt: new Date().toISOString() };
}
