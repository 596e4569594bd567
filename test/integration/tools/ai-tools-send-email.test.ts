import { describe, expect, it } from 'vitest';
import { runTool } from '#areas/tools/for-agents.ts';
import type { ToolItem } from '#areas/tools/records.ts';
import { testMailer } from '#test/support/test-ports.ts';

/**
 * The Send Email executor against DynamoDB Local, as a turn calls it: recipients once each, a
 * subject that is one header line, and its send limits under real parallel calls.
 */
const mailTool = () =>
  ({
    id: crypto.randomUUID(),
    displayName: 'Mail Desk',
    baseToolCode: 'send_email',
    configParams: { allowedRecipients: ['acme.example', 'team@other.example'] },
  }) as unknown as ToolItem;
const ctx = (conversationId?: string) => ({
  tenantId: crypto.randomUUID(),
  agentId: 'a1',
  requestId: crypto.randomUUID(),
  ...(conversationId ? { conversationId } : {}),
});
const sentTo = (marker: string) => testMailer.outbox.filter((m) => m.text === marker);

describe('Send Email tool', () => {
  it('sends one message to each address once, whatever the case or the repeats', async () => {
    const marker = crypto.randomUUID();
    const to = [...Array(5).fill('Ann@acme.example'), ...Array(5).fill('ann@ACME.example'), 'TEAM@other.example'];
    const r = await runTool(mailTool(), { to, subject: 'Lead', text: marker }, ctx());
    expect(r).toEqual({ ok: true, result: { queued: true, to: ['ann@acme.example', 'team@other.example'] } });
    expect(sentTo(marker)).toEqual([expect.objectContaining({ to: ['ann@acme.example', 'team@other.example'] })]);
  });

  it('refuses a subject with a line break or another control character, and sends nothing', async () => {
    const marker = crypto.randomUUID();
    for (const subject of ['Lead\r\nBcc: evil@example.com', 'Lead\nX-Spam: no', 'Lead\u0000', 'Lead\u0085more']) {
      const r = await runTool(mailTool(), { to: 'ann@acme.example', subject, text: marker }, ctx());
      expect(r, JSON.stringify(subject)).toEqual({
        ok: false,
        error: 'The subject must be one line without control characters',
      });
    }
    expect(sentTo(marker)).toEqual([]);
  });

  it('sends at most 5 e-mails per conversation an hour, under parallel calls', async () => {
    const tool = mailTool();
    const marker = crypto.randomUUID();
    const c = ctx(crypto.randomUUID());
    const results = await Promise.all(
      Array.from({ length: 9 }, () => runTool(tool, { to: 'ann@acme.example', text: marker }, c)),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    expect(results.filter((r) => !r.ok)).toEqual(
      Array(4).fill({ ok: false, error: expect.stringMatching(/conversation has sent its 5 e-mails for this hour/) }),
    );
    expect(sentTo(marker)).toHaveLength(5);
    // Another conversation of the same tool still sends.
    expect(
      await runTool(tool, { to: 'ann@acme.example', text: marker }, { ...c, conversationId: 'other' }),
    ).toMatchObject({ ok: true });
  });

  it('sends at most 50 e-mails per tool a day across conversations, under parallel calls', async () => {
    const tool = mailTool();
    const marker = crypto.randomUUID();
    const tenantId = crypto.randomUUID();
    const calls = Array.from({ length: 60 }, (_, i) =>
      runTool(tool, { to: 'ann@acme.example', text: marker }, { ...ctx(`conversation-${i % 12}`), tenantId }),
    );
    const results = await Promise.all(calls);
    expect(results.filter((r) => r.ok)).toHaveLength(50);
    expect(results.filter((r) => !r.ok)).toEqual(
      Array(10).fill({ ok: false, error: expect.stringMatching(/tool has sent its 50 e-mails for today/) }),
    );
    expect(sentTo(marker)).toHaveLength(50);
  });
});
