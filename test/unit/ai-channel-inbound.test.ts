import { describe, expect, it } from 'vitest';
import { parseInbound, whatsAppSubscription } from '#areas/channels/inbound/index.ts';

const j = JSON.stringify;

// Payload shapes follow each platform's documentation examples (Slack Events API "message.im" and
// "url_verification"; Bot Framework activity as Teams outgoing webhooks send it; WhatsApp Cloud API
// "Text messages" and "Status" webhooks; Telegram Bot API Update; Discord Interaction object).
describe('Slack', () => {
  const callback = (event: Record<string, unknown>) =>
    j({
      token: 'XXYYZZ',
      team_id: 'T123ABC456',
      api_app_id: 'A123ABC456',
      event,
      type: 'event_callback',
      event_id: 'Ev123ABC456',
      event_time: 1515449522,
    });

  it('answers url_verification with its challenge', () => {
    const body = j({
      token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
      type: 'url_verification',
    });
    expect(parseInbound('slack', body)).toEqual([
      {
        kind: 'challenge',
        eventId: null,
        sender: null,
        text: '',
        challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
      },
    ]);
  });

  it('turns a direct message into a message answered in the DM, deduplicated by event_id and by channel + ts', () => {
    const body = callback({
      type: 'message',
      channel: 'D024BE91L',
      user: 'U2147483697',
      text: 'Hello hello can you hear me?',
      ts: '1355517523.000005',
      channel_type: 'im',
    });
    expect(parseInbound('slack', body)).toEqual([
      {
        kind: 'message',
        eventId: 'Ev123ABC456',
        messageId: 'D024BE91L:1355517523.000005',
        sender: 'U2147483697',
        text: 'Hello hello can you hear me?',
        replyTo: { recipient: 'D024BE91L' },
      },
    ]);
  });

  it('answers a mention in its thread, without the mention in the text', () => {
    const body = callback({
      type: 'app_mention',
      user: 'W021FGA1Z',
      text: '<@U0LAN0Z89> is it everything a river should be?',
      ts: '1515449522.000016',
      channel: 'C123ABC456',
    });
    const [e] = parseInbound('slack', body)!;
    expect(e).toMatchObject({
      kind: 'message',
      text: 'is it everything a river should be?',
      replyTo: { recipient: 'C123ABC456', threadId: '1515449522.000016' },
    });
  });

  it('ignores bot echoes (our own answers), edits and other events, keeping their id for dedupe', () => {
    const bot = callback({
      type: 'message',
      channel: 'D024BE91L',
      bot_id: 'B123',
      text: 'the agent answer',
      ts: '1.2',
    });
    const edit = callback({ type: 'message', subtype: 'message_changed', channel: 'D024BE91L', ts: '1.2' });
    const reaction = callback({ type: 'reaction_added', user: 'U1', reaction: 'thumbsup' });
    for (const body of [bot, edit, reaction])
      expect(parseInbound('slack', body)).toEqual([
        { kind: 'ignored', eventId: 'Ev123ABC456', sender: null, text: '' },
      ]);
  });

  it('refuses a body that is not a JSON object', () => {
    for (const body of ['', 'token=x&text=y', '[1]', 'null', '"s"']) expect(parseInbound('slack', body)).toBeNull();
  });
});

describe('Teams', () => {
  const activity = {
    type: 'message',
    id: '1485983408511',
    timestamp: '2017-02-01T21:10:07.437Z',
    serviceUrl: 'https://smba.trafficmanager.net/amer/',
    channelId: 'msteams',
    from: {
      id: '29:1XJKJMvc5GBtc2JwZq0oj8tHZmzrQgFmB39ATiQWA85gQtHieVkKilBZ9XHoq9j7Zaqt7CZ-NJWi7me2kHTL3Bw',
      name: 'Tim Jones',
      aadObjectId: 'f4bd4a7c-0a6b-4e4d-a3f8-1e2e7a8e1d43',
    },
    conversation: { id: '19:253b1f341670408fb6fe51050b6e5ceb@thread.skype;messageid=1485983194839', isGroup: true },
    recipient: null,
    textFormat: 'plain',
    text: '<at>Sample Outgoing Webhook</at> Can you tell me about our&nbsp;plans?',
    entities: [
      {
        type: 'mention',
        mentioned: { id: '28:c9e8c047-2a74-40a2-b28a-b162d5f5327c', name: 'Sample Outgoing Webhook' },
        text: '<at>Sample Outgoing Webhook</at>',
      },
    ],
  };

  it('turns a message activity into a reply to its conversation at its serviceUrl', () => {
    expect(parseInbound('teams', j(activity))).toEqual([
      {
        kind: 'message',
        eventId: '1485983408511',
        messageId: `${activity.conversation.id}:1485983408511`,
        sender: 'f4bd4a7c-0a6b-4e4d-a3f8-1e2e7a8e1d43',
        senderName: 'Tim Jones',
        text: 'Can you tell me about our plans?',
        replyTo: {
          recipient: activity.conversation.id,
          threadId: '1485983408511',
          serviceUrl: 'https://smba.trafficmanager.net/amer/',
        },
        sentAt: 1485983407,
      },
    ]);
  });

  it('dates a message by its timestamp only when it is a time', () => {
    for (const timestamp of [undefined, 'yesterday', 1485983408, 'x'.repeat(41)])
      expect(parseInbound('teams', j({ ...activity, timestamp }))![0]).not.toHaveProperty('sentAt');
  });

  it('ignores other activity types and a message that is only the mention', () => {
    expect(parseInbound('teams', j({ ...activity, type: 'conversationUpdate' }))![0]!.kind).toBe('ignored');
    expect(parseInbound('teams', j({ ...activity, text: '<at>Sample Outgoing Webhook</at>' }))![0]!.kind).toBe(
      'ignored',
    );
  });
});

describe('WhatsApp', () => {
  const notification = (value: Record<string, unknown>) =>
    j({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
                ...value,
              },
              field: 'messages',
            },
          ],
        },
      ],
    });

  it('turns each text message into a message to the sender’s number, deduplicated by the message id', () => {
    const body = notification({
      contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
      messages: [
        {
          from: '16505551234',
          id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
          timestamp: '1749416383',
          type: 'text',
          text: { body: 'Does it come in another color?' },
        },
        {
          from: '16505551234',
          id: 'wamid.second',
          timestamp: '1749416384',
          type: 'interactive',
          interactive: { type: 'button_reply', button_reply: { id: 'yes', title: 'Yes please' } },
        },
        {
          from: '16505551234',
          id: 'wamid.image',
          timestamp: '1749416385',
          type: 'image',
          image: { id: '1003383421387256', mime_type: 'image/jpeg' },
        },
      ],
    });
    expect(parseInbound('whatsapp', body)).toEqual([
      {
        kind: 'message',
        eventId: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
        sender: '16505551234',
        senderName: 'Sheena Nelson',
        text: 'Does it come in another color?',
        replyTo: { recipient: '16505551234' },
        sentAt: 1749416383,
      },
      {
        kind: 'message',
        eventId: 'wamid.second',
        sender: '16505551234',
        senderName: 'Sheena Nelson',
        text: 'Yes please',
        replyTo: { recipient: '16505551234' },
        sentAt: 1749416384,
      },
      { kind: 'ignored', eventId: 'wamid.image', sender: null, text: '' },
    ]);
  });

  it('reads delivery statuses of our own messages as receipts (a failure with its code), never as turns; ignores other objects', () => {
    const statuses = notification({
      statuses: [
        { id: 'wamid.x', status: 'delivered', timestamp: '1749416400', recipient_id: '16505551234' },
        {
          id: 'wamid.y',
          status: 'failed',
          timestamp: '1749416401',
          recipient_id: '16505551234',
          errors: [{ code: 131049, title: 'This message was not delivered to maintain healthy ecosystem engagement.' }],
        },
        { id: 'wamid.z', status: 'deleted', timestamp: '1749416402', recipient_id: '16505551234' },
      ],
    });
    expect(parseInbound('whatsapp', statuses)).toEqual([
      {
        kind: 'receipt',
        eventId: null,
        sender: null,
        text: '',
        receipt: { platformMessageId: 'wamid.x', status: 'Delivered', error: null },
      },
      {
        kind: 'receipt',
        eventId: null,
        sender: null,
        text: '',
        receipt: {
          platformMessageId: 'wamid.y',
          status: 'Failed',
          error: 'This message was not delivered to maintain healthy ecosystem engagement. (code 131049)',
        },
      },
    ]);
    expect(parseInbound('whatsapp', j({ object: 'page', entry: [] }))![0]!.kind).toBe('ignored');
  });

  it('answers the GET subscription challenge only for the configured verify token', () => {
    const q = { 'hub.mode': 'subscribe', 'hub.verify_token': 'meatyhamhock', 'hub.challenge': '1158201444' };
    expect(whatsAppSubscription(q, 'meatyhamhock')).toEqual({ ok: true, challenge: '1158201444' });
    expect(whatsAppSubscription(q, 'another-token')).toEqual({ ok: false });
    expect(whatsAppSubscription({ ...q, 'hub.mode': 'unsubscribe' }, 'meatyhamhock')).toEqual({ ok: false });
    expect(whatsAppSubscription({ ...q, 'hub.challenge': undefined }, 'meatyhamhock')).toEqual({ ok: false });
    expect(whatsAppSubscription({ ...q, 'hub.verify_token': undefined }, 'meatyhamhock')).toEqual({ ok: false });
    expect(whatsAppSubscription(q, '')).toEqual({ ok: false });
  });
});

describe('Telegram', () => {
  const update = {
    update_id: 10000,
    message: {
      message_id: 1365,
      from: {
        id: 1111111,
        is_bot: false,
        first_name: 'Test',
        last_name: 'Lastname',
        username: 'Test',
        language_code: 'en',
      },
      chat: { id: 1111111, first_name: 'Test', last_name: 'Lastname', username: 'Test', type: 'private' },
      date: 1441645532,
      text: '/start hello there',
    },
  };

  it('turns a text message into a message to its chat, deduplicated by update_id and by chat + message_id', () => {
    expect(parseInbound('telegram', j(update))).toEqual([
      {
        kind: 'message',
        eventId: '10000',
        messageId: '1111111:1365',
        sender: '1111111',
        senderName: 'Test Lastname',
        text: '/start hello there',
        replyTo: { recipient: '1111111' },
        sentAt: 1441645532,
      },
    ]);
    for (const date of ['1441645532x', -1, 1.5, null])
      expect(parseInbound('telegram', j({ ...update, message: { ...update.message, date } }))![0]).not.toHaveProperty(
        'sentAt',
      );
  });

  it('answers a group message in the group, and ignores edits, bots and stickers', () => {
    const group = {
      ...update,
      message: { ...update.message, chat: { id: -1001234567890, title: 'Team', type: 'supergroup' } },
    };
    expect(parseInbound('telegram', j(group))![0]!.replyTo).toEqual({ recipient: '-1001234567890' });
    const edited = { update_id: 10001, edited_message: update.message };
    const bot = { ...update, message: { ...update.message, from: { ...update.message.from, is_bot: true } } };
    const sticker = { ...update, message: { ...update.message, text: undefined, sticker: { file_id: 'x' } } };
    expect(parseInbound('telegram', j(edited))).toEqual([
      { kind: 'ignored', eventId: '10001', sender: null, text: '' },
    ]);
    expect(parseInbound('telegram', j(bot))![0]!.kind).toBe('ignored');
    expect(parseInbound('telegram', j(sticker))![0]!.kind).toBe('ignored');
  });
});

describe('Discord', () => {
  it('recognises PING', () => {
    expect(
      parseInbound(
        'discord',
        j({ id: '1099999999999999999', application_id: '1088888888888888888', type: 1, token: 'tok', version: 1 }),
      ),
    ).toEqual([{ kind: 'ping', eventId: '1099999999999999999', sender: null, text: '' }]);
  });

  it('turns an application command into a message answered as a follow-up on the interaction token', () => {
    const command = {
      id: '786008729715212338',
      application_id: '775799577604522054',
      type: 2,
      data: {
        id: '771825006014889984',
        name: 'ask',
        type: 1,
        options: [{ name: 'question', type: 3, value: 'When do you open?' }],
      },
      guild_id: '290926798626357999',
      channel_id: '645027906669510667',
      member: { user: { id: '53908232506183680', username: 'Mason', global_name: 'Mason J' }, roles: [] },
      token: 'A_UNIQUE_TOKEN',
      version: 1,
    };
    expect(parseInbound('discord', j(command))).toEqual([
      {
        kind: 'message',
        eventId: '786008729715212338',
        sender: '53908232506183680',
        senderName: 'Mason J',
        text: 'When do you open?',
        replyTo: { recipient: '645027906669510667', interactionToken: 'A_UNIQUE_TOKEN' },
      },
    ]);
    // In a direct message the user is at the top level.
    const dm = {
      ...command,
      member: undefined,
      guild_id: undefined,
      user: { id: '53908232506183680', username: 'Mason' },
    };
    expect(parseInbound('discord', j(dm))![0]).toMatchObject({
      kind: 'message',
      sender: '53908232506183680',
      senderName: 'Mason',
    });
  });

  it('ignores components and a command without text', () => {
    expect(
      parseInbound('discord', j({ id: '1', type: 3, token: 't', channel_id: '2', member: { user: { id: '3' } } }))![0]!
        .kind,
    ).toBe('ignored');
    expect(
      parseInbound(
        'discord',
        j({ id: '1', type: 2, data: { name: 'ask' }, token: 't', channel_id: '2', member: { user: { id: '3' } } }),
      )![0]!.kind,
    ).toBe('ignored');
  });
});
