import { safeParse, type z } from 'zod/mini';
import { once, type AnySchema } from '#shared/routes/types.ts';
import { wiredFor, type Wiring } from './wiring.ts';

/**
 * Events: how a lower area tells a higher one that something happened (docs/architecture.md, "Events
 * and queries"). The lower area declares the event and emits it after its change committed; the entry
 * point of each function that can emit it wires the subscribers (wiring.ts), which run in the same
 * invocation, one after the other, before `emit` returns: the emitter's work and the subscribers'
 * happen in the order they did when the emitter called them itself, and a subscriber's failure is
 * the emitter's, as it was. Nothing is queued, so nothing is lost between them; what must survive a
 * crash stays in the emitter's transaction.
 */
export interface EventKind<S extends AnySchema = AnySchema> {
  name: string;
  schema: () => S;
}

export const defineEvent = <S extends AnySchema>(name: string, schema: () => S): EventKind<S> => ({
  name: `event:${name}`,
  schema: once(schema),
});

/** A subscriber of `event`, for an entry point's wiring. */
export const on = <S extends AnySchema>(
  event: EventKind<S>,
  run: (payload: z.output<S>) => Promise<unknown>,
): Wiring => ({
  name: event.name,
  run: (payload) => run(payload as z.output<S>),
});

/**
 * Tells the subscribers the running function wired. An event its function wired nobody for is a
 * wiring fault (`test/unit/wiring.test.ts` finds them in every bundle): it throws rather than let the
 * higher area silently miss the change.
 */
export async function emit<S extends AnySchema>(event: EventKind<S>, payload: z.input<S>): Promise<void> {
  const subscribers = wiredFor(event.name);
  if (!subscribers.length) throw new Error(`${event.name} was emitted, but this function wires no subscriber for it`);
  const parsed = safeParse(event.schema() as AnySchema as z.ZodMiniType, payload);
  if (!parsed.success) throw new Error(`${event.name}: the payload breaks its schema`);
  for (const s of subscribers) await s.run(parsed.data);
}
