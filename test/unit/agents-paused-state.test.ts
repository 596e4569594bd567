import { describe, expect, it } from 'vitest';
import { PAUSED_STATE_VERSION, readPausedState, writePausedState } from '#areas/agents/paused-state.ts';
import type { PausedTurn } from '#areas/agents/runtime.ts';

const turn: PausedTurn = {
  messages: [
    { role: 'system', content: 'You are Support.' },
    { role: 'user', content: 'mail the desk' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'mail_desk', arguments: '{"to":"a@b.c"}' } }],
    },
  ],
  step: 1,
  usage: { promptTokens: 40, completionTokens: 9, totalTokens: 49 },
  records: [],
  citations: [{ chunkId: 'c', documentId: 'd', documentTitle: 'Hours', score: 0.8 }],
  untrusted: false,
  noAnswer: false,
  pending: [
    {
      toolCallId: 'call_1',
      toolId: 't',
      tool: 'mail_desk',
      arguments: { to: 'a@b.c' },
      reason: null,
      timeoutMinutes: 60,
    },
  ],
};

describe("a paused turn's stored state", () => {
  it('is written with its schema version and read back as it was', () => {
    const stored = writePausedState(turn);
    expect(JSON.parse(stored).schemaVersion).toBe(PAUSED_STATE_VERSION);
    expect(readPausedState(stored)).toEqual(turn);
  });

  it('reads the shape written before versions (no schemaVersion): a turn paused by the previous deploy resumes', () => {
    expect(readPausedState(JSON.stringify(turn))).toEqual(turn);
  });

  it('refuses a version this deploy does not know, a broken shape and a state that is not JSON, each saying why', () => {
    const refused = (stored: string) => {
      try {
        readPausedState(stored);
      } catch (err) {
        return err as { status: number; code: string; message: string };
      }
      throw new Error('read');
    };
    expect(refused(JSON.stringify({ ...turn, schemaVersion: 9 }))).toMatchObject({
      status: 409,
      code: 'PAUSED_TURN_UNREADABLE',
      message: `The paused turn cannot be resumed: its state has version 9; this deploy reads versions 0 to ${PAUSED_STATE_VERSION}`,
    });
    expect(refused(JSON.stringify({ ...turn, pending: [] })).message).toMatch(/breaks the version 0 shape/);
    expect(refused(JSON.stringify({ ...turn, schemaVersion: 1, step: 'one' })).message).toMatch(/version 1 shape/);
    expect(refused('{').message).toMatch(/not JSON/);
  });
});
