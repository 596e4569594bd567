import { beforeAll, describe, expect, it } from 'vitest';
import { lastInboundKey } from '#areas/channels/records.ts';
import { commitChange, putItem } from '#shared/data/commit.ts';
import { useChannelStandIn } from '#test/support/channel-stand-in.ts';
import { connect, hook, tenantWithAgent, whatsapp } from '#test/support/channel-fixtures.ts';
import { invoke } from '#test/support/invoke.ts';

/**
 * WhatsApp status callbacks as Meta sends them (sent, delivered, read; failed with `errors[]` and the
 * platform's code) update the proactive message and the conversation message they are about: a
 * message Meta accepted and later could not deliver shows Failed with the reason, not Sent. Receipts
 * arrive out of order and twice; a late one never moves a status back.
 */
const standIn = useChannelStandIn();
let tenantId: string;
let owner: string;
let channelId: string;
const P = '/api/proactive-messages';

beforeAll(async () => {
  let agentId: string;
  ({ tenantId, owner, agentId } = await tenantWithAgent());
  channelId = await connect(owner, agentId, 'whatsapp');
});

const receipt = async (body: string) => {
  const res = await hook('whatsapp', channelId, body, whatsapp.headers(body));
  expect(res).toAnswer(200);
};

async function sentProactive(to: string) {
  await commitChange([putItem({ ...lastInboundKey(tenantId, channelId, to), at: new Date().toISOString() })], null);
  const res = await invoke('POST', P, { token: owner, body: { channelId, recipient: to, text: 'Your parcel is out' } });
  expect(res).toAnswer(202);
  const [call] = (await standIn.recorded('whatsapp')).filter((c) => c.body.includes(to));
  const wamid = (call!.response as { messages: { id: string }[] }).messages[0]!.id;
  return { id: res.json.result.id as string, wamid };
}
const proactive = async (id: string) => (await invoke('GET', `${P}/${id}`, { token: owner })).json.result;

describe('proactive messages', () => {
  it('Sent at the send; delivered, then read; a delivered arriving after read changes nothing', async () => {
    const to = '4915200000001';
    const { id, wamid } = await sentProactive(to);
    expect(await proactive(id)).toMatchObject({ status: 'Sent', deliveryStatus: 'Sent', deliveryError: null });
    await receipt(whatsapp.status(wamid, to, 'delivered'));
    expect((await proactive(id)).deliveryStatus).toBe('Delivered');
    await receipt(whatsapp.status(wamid, to, 'read'));
    await receipt(whatsapp.status(wamid, to, 'delivered'));
    expect(await proactive(id)).toMatchObject({ deliveryStatus: 'Read', deliveryError: null });
  });

  it("failed with Meta's code after the send: Failed with the reason, not Sent", async () => {
    const to = '4915200000002';
    const { id, wamid } = await sentProactive(to);
    await receipt(whatsapp.status(wamid, to, 'sent'));
    await receipt(
      whatsapp.status(wamid, to, 'failed', {
        code: 131026,
        title: 'Message undeliverable',
        details:
          'Unable to deliver message. Reasons can include: the recipient phone number is not a WhatsApp phone number.',
      }),
    );
    const got = await proactive(id);
    expect(got.deliveryStatus).toBe('Failed');
    expect(got.deliveryError).toEqual(
      expect.stringMatching(/^Message undeliverable \(code 131026\): Unable to deliver/),
    );
    // The send itself went: the status of the send stays Sent, the platform's report says Failed.
    expect(got.status).toBe('Sent');
  });

  it('a receipt for a message we never sent, or in a batch with statuses only, answers 200 and changes nothing', async () => {
    const statuses = async () =>
      (await invoke('GET', `${P}?channelId=${channelId}&pageSize=100`, { token: owner })).json.result.items.map(
        (m: { deliveryStatus: string }) => m.deliveryStatus,
      );
    const before = await statuses();
    await receipt(whatsapp.status('wamid.UNKNOWN', '4915200000009', 'failed', { code: 131026, title: 'x' }));
    expect(await statuses()).toEqual(before);
  });
});

describe('conversation messages', () => {
  it("the agent's answer on WhatsApp is Sent, then Delivered and Read as Meta reports; the visitor's message has none", async () => {
    const to = '4915200000003';
    const inbound = whatsapp.text(to, 'Where is my parcel?');
    await receipt(inbound);
    const [call] = (await standIn.recorded('whatsapp')).filter((c) => c.body.includes(to));
    const wamid = (call!.response as { messages: { id: string }[] }).messages[0]!.id;
    const list = await invoke('GET', '/api/conversations?channel=whatsapp&pageSize=100', { token: owner });
    const detailOf = async () => {
      for (const c of list.json.result.items) {
        const d = (await invoke('GET', `/api/conversations/${c.id}`, { token: owner })).json.result;
        if (d.messages.some((m: { text: string }) => m.text === 'Where is my parcel?')) return d;
      }
      throw new Error('conversation not found');
    };
    let [visitor, answer] = (await detailOf()).messages;
    expect(visitor).toMatchObject({ role: 'visitor', deliveryStatus: null });
    expect(answer).toMatchObject({ role: 'agent', deliveryStatus: 'Sent', deliveryError: null });
    await receipt(whatsapp.status(wamid, to, 'delivered'));
    await receipt(whatsapp.status(wamid, to, 'read'));
    [visitor, answer] = (await detailOf()).messages;
    expect(answer.deliveryStatus).toBe('Read');
    await receipt(whatsapp.status(wamid, to, 'failed', { code: 131047, title: 'Re-engagement message' }));
    // Read is final: a failure reported after it is not believed over the person having read it.
    expect((await detailOf()).messages[1].deliveryStatus).toBe('Read');
  });
});
