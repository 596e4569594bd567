import * as z from 'zod/mini';
import { once } from '#shared/routes/types.ts';
import { pausedTurnUnreadable } from './errors.ts';
import type { PausedTurn } from './runtime.ts';

/**
 * A paused turn's stored state (as openai-agents' RunState): written with a schema version and parsed
 * on load, so a turn paused by one deploy resumes under the next, and a state no deploy of this
 * code can read fails with a clear refusal instead of a turn run on half a state. Version 0 is the
 * shape before versions (the same fields, no `schemaVersion`).
 */
export const PAUSED_STATE_VERSION = 1;

/** Built on the first resume: a cold start that resumes no turn builds no schema. */
const pausedTurn = once(() => {
  const text = z.string();
  const toolCall = z.looseObject({
    id: text,
    type: z.literal('function'),
    function: z.looseObject({ name: text, arguments: text }),
  });
  const message = z.discriminatedUnion('role', [
    z.looseObject({ role: z.literal('system'), content: text }),
    z.looseObject({ role: z.literal('user'), content: text }),
    z.looseObject({
      role: z.literal('assistant'),
      content: z.nullable(text),
      tool_calls: z.optional(z.array(toolCall)),
    }),
    z.looseObject({ role: z.literal('tool'), content: text, tool_call_id: text }),
  ]);
  const count = z.number().check(z.minimum(0));

  return z.looseObject({
    messages: z.array(message).check(z.minLength(1)),
    step: z.int().check(z.minimum(1)),
    usage: z.looseObject({ promptTokens: count, completionTokens: count, totalTokens: count }),
    records: z.array(z.looseObject({ name: text, status: z.enum(['ok', 'error']), durationMs: count, result: text })),
    citations: z.array(z.looseObject({ chunkId: text, documentId: text, documentTitle: text, score: z.number() })),
    untrusted: z.boolean(),
    noAnswer: z.boolean(),
    pending: z
      .array(
        z.looseObject({
          toolCallId: text,
          toolId: text,
          tool: text,
          arguments: z.record(z.string(), z.unknown()),
          reason: z.nullable(text),
          timeoutMinutes: z.number().check(z.minimum(1)),
        }),
      )
      .check(z.minLength(1)),
  });
});

export const writePausedState = (p: PausedTurn): string =>
  JSON.stringify({ schemaVersion: PAUSED_STATE_VERSION, ...p });

/** The stored state as the resumed turn takes it; a version this code does not know, or a broken state, is refused. */
export function readPausedState(stored: string): PausedTurn {
  let raw: unknown;
  try {
    raw = JSON.parse(stored);
  } catch {
    throw pausedTurnUnreadable('its state is not JSON');
  }
  const { schemaVersion = 0, ...state } = (raw ?? {}) as { schemaVersion?: unknown } & Record<string, unknown>;
  if (schemaVersion !== 0 && schemaVersion !== PAUSED_STATE_VERSION)
    throw pausedTurnUnreadable(
      `its state has version ${String(schemaVersion)}; this deploy reads versions 0 to ${PAUSED_STATE_VERSION}`,
    );
  const parsed = z.safeParse(pausedTurn(), state);
  if (!parsed.success) throw pausedTurnUnreadable(`its state breaks the version ${schemaVersion} shape`);
  return parsed.data as unknown as PausedTurn;
}
