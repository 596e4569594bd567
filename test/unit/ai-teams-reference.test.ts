import { describe, expect, it } from 'vitest';
import { referenceOf } from '#areas/connector/teams-reference.ts';

/**
 * The conversation reference a Teams activity leaves (for a bot's proactive messages): where it is
 * kept (the user for a personal chat, the conversation otherwise) and what it holds, bounded.
 */
const activity = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'conversationUpdate',
    id: 'f:1',
    serviceUrl: 'https://smba.trafficmanager.net/emea/',
    channelId: 'msteams',
    from: { id: '29:1ada', name: 'Ada', aadObjectId: 'aad-ada' },
    recipient: { id: '28:bot-app', name: 'Support bot' },
    conversation: { conversationType: 'personal', id: 'a:1ada', tenantId: 'contoso' },
    channelData: { tenant: { id: 'contoso' } },
    ...over,
  });

describe('referenceOf', () => {
  it('a personal chat: kept by the user (Entra object id), with the bot, the user, the conversation and its tenant', () => {
    expect(referenceOf(activity())).toEqual({
      address: 'aad-ada',
      reference: {
        serviceUrl: 'https://smba.trafficmanager.net/emea/',
        channelId: 'msteams',
        conversation: { id: 'a:1ada', conversationType: 'personal', tenantId: 'contoso' },
        bot: { id: '28:bot-app', name: 'Support bot' },
        user: { id: '29:1ada', name: 'Ada', aadObjectId: 'aad-ada' },
      },
    });
  });

  it('without an Entra object id, by the Teams user id; the tenant from channelData when the conversation lacks it', () => {
    const found = referenceOf(
      activity({ from: { id: '29:1ada' }, conversation: { conversationType: 'personal', id: 'a:1ada' } }),
    );
    expect(found?.address).toBe('29:1ada');
    expect(found?.reference.conversation).toEqual({ id: 'a:1ada', conversationType: 'personal', tenantId: 'contoso' });
  });

  it('a channel or group chat (or, without a type, a group): kept by the conversation, never by the user', () => {
    const thread = '19:general@thread.tacv2;messageid=1';
    expect(referenceOf(activity({ conversation: { conversationType: 'channel', id: thread } }))?.address).toBe(thread);
    expect(referenceOf(activity({ conversation: { conversationType: 'groupChat', id: '19:g' } }))?.address).toBe(
      '19:g',
    );
    expect(referenceOf(activity({ conversation: { id: '19:g', isGroup: true } }))?.address).toBe('19:g');
    expect(referenceOf(activity({ conversation: { id: 'a:1ada' } }))?.address).toBe('aad-ada');
  });

  it('none from the bot itself, from an activity missing its serviceUrl or ids, or beyond their lengths', () => {
    for (const over of [
      { from: { id: '29:1ada', role: 'bot' } },
      { from: { id: '28:bot-app' } },
      { serviceUrl: undefined },
      { serviceUrl: 'ftp://smba.trafficmanager.net/emea/' },
      { serviceUrl: 'not a url' },
      { serviceUrl: `https://smba.trafficmanager.net/${'a'.repeat(600)}` },
      { conversation: { conversationType: 'personal', id: 'x'.repeat(513) } },
      { recipient: {} },
      { from: {} },
    ])
      expect(referenceOf(activity(over)), JSON.stringify(over).slice(0, 80)).toBeNull();
    expect(referenceOf('not json')).toBeNull();
  });

  it('names are cut to 200 characters; the reference stays small', () => {
    const found = referenceOf(activity({ from: { id: '29:1ada', name: 'n'.repeat(5000), aadObjectId: 'aad-ada' } }));
    expect(found?.reference.user.name).toHaveLength(200);
    expect(JSON.stringify(found).length).toBeLessThan(800);
  });
});
