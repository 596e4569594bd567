import { describe, expect, it, vi } from 'vitest';
import { newTenant } from '#test/support/fixtures.ts';
import { activePrompt, activeTool, agentItem, snapshotOf } from '#test/support/agents-runtime.ts';

// A model that asks for a tool at every step, and one that fails outright.
const calls: { toolChoice: unknown; caller: unknown }[] = [];
let failing = false;
vi.mock('#areas/llm-gateway/chat.ts', () => ({
  chat: async (c: { toolChoice: unknown; caller: unknown }) => {
    calls.push({ toolChoice: c.toolChoice, caller: c.caller });
    if (failing) throw new Error('socket hang up');
    return {
      model: 'local-chat',
      message: {
        content: null,
        toolCalls: [{ id: `c${calls.length}`, type: 'function', function: { name: 'book_slot', arguments: '{}' } }],
      },
      finishReason: 'tool_calls',
      usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
      costUsd: 0,
    };
  },
  chatStream: async function* () {},
}));
const { runTurn, MAX_STEPS } = await import('#areas/agents/runtime.ts');

describe('agent runtime bounds', () => {
  it('stops after five model steps; the last offers no tools; every call is the agent caller', async () => {
    const t = await newTenant();
    const p = await activePrompt(t, 'Hi');
    const toolId = await activeTool(t, 'db_query', 'Book Slot');
    const item = await agentItem(t, { promptId: p.promptId, toolIds: [toolId] });
    const input = {
      tenantId: t,
      agent: snapshotOf(item, p.promptVersionId),
      messages: [{ role: 'user' as const, content: 'book' }],
      caller: { kind: 'agent' as const, agentId: item.id },
      requestId: crypto.randomUUID(),
    };
    calls.length = 0;
    const r = await runTurn(input);
    expect(MAX_STEPS).toBe(5);
    expect(calls).toHaveLength(5);
    expect(calls.at(-1)?.toolChoice).toBe('none');
    expect(calls.every((c) => JSON.stringify(c.caller) === JSON.stringify({ kind: 'agent', agentId: item.id }))).toBe(
      true,
    );
    expect(r.toolCalls).toHaveLength(4);
    expect(r.usage.totalTokens).toBe(60);

    failing = true;
    await expect(runTurn(input)).rejects.toMatchObject({ status: 503, code: 'AGENT_UNAVAILABLE' });
  });
});
