import { beforeAll, describe, expect, it } from 'vitest';
import { useChannelStandIn } from '#test/support/channel-stand-in.ts';
import { connect, DISCORD_APP_ID, discordInteraction, hook, tenantWithAgent } from '#test/support/channel-fixtures.ts';
import { invoke } from '#test/support/invoke.ts';

/**
 * Discord as it is: the HTTP interactions endpoint gets slash commands, not channel messages. The
 * tenant registers `/ask` for the connection's application (against the Discord stand-in locally);
 * a person's `/ask` is answered with a deferred response (type 5) at once and the agent's answer
 * follows up on the interaction token.
 */
const standIn = useChannelStandIn();
let owner: string;
let agentId: string;

beforeAll(async () => {
  ({ owner, agentId } = await tenantWithAgent());
});

describe('/ask', () => {
  it('registers the command on the application with the bot token; again overwrites it (same id)', async () => {
    const channelId = await connect(owner, agentId, 'discord');
    const path = `/api/ai/channels/${channelId}/discord/commands`;
    const first = await invoke('POST', path, { token: owner });
    expect(first).toAnswer(200);
    expect(first.json.result).toMatchObject({ name: 'ask', applicationId: DISCORD_APP_ID });
    const [call] = await standIn.recorded('discord');
    expect(call!.url).toBe(`${standIn.base}/_local/channels/discord/applications/${DISCORD_APP_ID}/commands`);
    expect(call!.headers.authorization).toBe('Bot MTA-discord-platforms');
    expect(JSON.parse(call!.body)).toMatchObject({
      name: 'ask',
      type: 1,
      options: [{ type: 3, name: 'question', required: true }],
    });
    const again = await invoke('POST', path, { token: owner });
    expect(again.json.result.commandId).toBe(first.json.result.commandId);
  });

  it('another platform is 409 COMMANDS_NOT_SUPPORTED; a connection without its bot token is 409; another tenant 404', async () => {
    const telegram = await connect(owner, agentId, 'telegram');
    const other = await invoke('POST', `/api/ai/channels/${telegram}/discord/commands`, { token: owner });
    expect(other).toAnswer(409, 'COMMANDS_NOT_SUPPORTED');
    const res = await invoke('POST', '/api/ai/channels', {
      token: owner,
      body: {
        type: 'discord',
        name: 'no token',
        agentId,
        settings: { applicationId: DISCORD_APP_ID, publicKey: 'ab'.repeat(32) },
      },
    });
    const noToken = await invoke('POST', `/api/ai/channels/${res.json.result.id}/discord/commands`, { token: owner });
    expect(noToken).toAnswer(409);
    const stranger = await tenantWithAgent();
    const channelId = await connect(owner, agentId, 'discord');
    expect(await invoke('POST', `/api/ai/channels/${channelId}/discord/commands`, { token: stranger.owner })).toAnswer(
      404,
    );
  });

  it('a /ask interaction is answered type 5 at once; the answer follows up on the interaction token', async () => {
    const channelId = await connect(owner, agentId, 'discord');
    const body = discordInteraction.command({ token: 'aW50ZXJhY3Rpb246ask', text: 'What do you sell?' });
    const started = performance.now();
    const res = await hook('discord', channelId, body, discordInteraction.headers(body));
    const ms = performance.now() - started;
    expect(res).toAnswer(200);
    expect(res.json).toEqual({ type: 5 });
    const followUps = (await standIn.recorded('discord')).filter((c) => c.url.includes('/webhooks/'));
    expect(followUps).toHaveLength(1);
    expect(followUps[0]!.url).toBe(
      `${standIn.base}/_local/channels/discord/webhooks/${DISCORD_APP_ID}/aW50ZXJhY3Rpb246ask`,
    );
    expect(JSON.parse(followUps[0]!.body).content.length).toBeGreaterThan(0);
    console.info(`[discord] /ask answered in ${ms.toFixed(0)} ms (the test port runs the turn inline)`);
  });
});
