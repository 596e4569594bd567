import { beforeAll, describe, expect, it, vi } from 'vitest';
import { publishedWidget, session } from '#test/support/conversations.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { setAllowance } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

// The real gateway, except while `failing`: then the model call dies as a provider would. While
// `held`, a model call waits for its release: a turn in flight.
let failing = false;
let held: { entered: () => void; release: Promise<void> } | null = null;
vi.mock('#areas/llm-gateway/chat.ts', async (actual) => {
  const real = await actual<typeof import('#areas/llm-gateway/chat.ts')>();
  return {
    ...real,
    chat: async (call: Parameters<typeof real.chat>[0]) => {
      if (failing) throw new Error('socket hang up');
      if (held) {
        held.entered();
        await held.release;
      }
      return real.chat(call);
    },
    chatStream: (call: Parameters<typeof real.chatStream>[0]) => {
      if (!failing) return real.chatStream(call);
      return (async function* () {
        yield* [];
        throw new Error('socket hang up');
      })();
    },
  };
});

let t: string;
let owner: string;
let widgetKey: string;

beforeAll(async () => {
  t = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
  owner = await tokenFor({ tenantId: t });
  ({ widgetKey } = await publishedWidget(owner));
});

const detail = async (id: string, token = owner) =>
  (await invoke('GET', `/api/conversations/${id}`, { token })).json.result as {
    status: string;
    escalationReason: string | null;
    messages: { role: string; text: string }[];
  };

describe('a turn that fails', () => {
  it('keeps the visitor message and a note; the conversation stays usable; a retry answers once', async () => {
    const s = await session(widgetKey);
    failing = true;
    const key = { 'idempotency-key': 'k-1' };
    const res = await s.send('hello there', key);
    failing = false;
    expect([res.status, res.json.error.code]).toEqual([503, 'AGENT_UNAVAILABLE']);
    let d = await detail(s.conversationId);
    expect(d.status).toBe('Open');
    expect(d.messages.map((m) => m.role)).toEqual(['visitor', 'system']);
    const retried = await s.send('hello there', key);
    expect(retried).toAnswer(200);
    expect(retried.json.result.message.text).toBe('You said: hello there');
    d = await detail(s.conversationId);
    expect(d.messages.map((m) => m.role)).toEqual(['visitor', 'system', 'agent']);
    // The same key once more: the stored answer, nothing new.
    expect((await s.send('hello there', key)).json.result.message.id).toBe(retried.json.result.message.id);
    expect((await detail(s.conversationId)).messages).toHaveLength(3);
  });

  it('a streamed turn that fails before its first word answers the status; the note is stored', async () => {
    const s = await session(widgetKey);
    failing = true;
    const res = await s.send('hello', { accept: 'text/event-stream' });
    failing = false;
    expect(res).toAnswer(503);
    expect((await detail(s.conversationId)).messages.map((m) => m.role)).toEqual(['visitor', 'system']);
  });

  it('a used-up token allowance: 429 TOKEN_LIMIT_REACHED and the conversation goes to a person', async () => {
    const t2 = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
    const o2 = await tokenFor({ tenantId: t2 });
    const s = await session((await publishedWidget(o2)).widgetKey);
    await setAllowance(t2, 1);
    const res = await s.send('hello');
    expect([res.status, res.json.error.code]).toEqual([429, 'TOKEN_LIMIT_REACHED']);
    const d = await detail(s.conversationId, o2);
    expect(d.status).toBe('Escalated');
    expect(d.escalationReason).toBe("The tenant's token allowance is used up");
    expect(d.messages.map((m) => [m.role, m.text])).toEqual([
      ['visitor', 'hello'],
      ['system', 'The assistant is unavailable; a person will follow up.'],
    ]);
    // While a person has it, the visitor's messages are stored and the agent stays silent.
    const next = await s.send('anyone?');
    expect(next.json.result).toEqual({ message: null, citations: [], escalated: true, awaitingApproval: false });
  });
});

describe('a turn in flight', () => {
  it('closing the conversation meanwhile keeps the answer and counts one analytics record', async () => {
    const t3 = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
    const o3 = await tokenFor({ tenantId: t3 });
    const s = await session((await publishedWidget(o3)).widgetKey);
    let entered!: () => void;
    let release!: () => void;
    const inModel = new Promise<void>((r) => {
      entered = r;
    });
    held = { entered, release: new Promise<void>((r) => (release = r)) };
    const sending = s.send('are you there?');
    await inModel;
    held = null;
    const closed = await invoke('PUT', `/api/conversations/${s.conversationId}/status`, {
      token: o3,
      body: { status: 'Closed' },
    });
    expect(closed.json.result?.status, closed.text).toBe('Closed');
    release();
    const answered = await sending;
    expect(answered).toAnswer(200);
    expect(answered.json.result.message).toMatchObject({ role: 'agent', text: 'You said: are you there?' });
    const d = await detail(s.conversationId, o3);
    expect(d.status).toBe('Closed');
    expect(d.messages.filter((m) => m.role !== 'system').map((m) => [m.role, m.text])).toEqual([
      ['visitor', 'are you there?'],
      ['agent', 'You said: are you there?'],
    ]);
    const support = await invoke('GET', '/api/analytics/support', { token: o3 });
    expect(support.json.result.totalConversations).toBe(1);
  });
});
