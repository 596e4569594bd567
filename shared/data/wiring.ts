import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What an entry point wires for its function's invocations: the subscribers of the events its code
 * emits (events.ts) and the answers to the questions its code asks upward (queries.ts). A lower
 * area declares both and never imports the higher one that answers; the entry point, which sees
 * every area, joins them, and the runtime (`apiHandler`, `queueWorker`, the scheduler) runs each
 * invocation under its wiring.
 */
export interface Wiring {
  /** The event's or query's name. */
  name: string;
  run(payload: unknown): Promise<unknown>;
}

const current = new AsyncLocalStorage<readonly Wiring[]>();

/** Runs `work` with `wiring` as what its emits reach and its questions ask. */
export const withWiring = <T>(wiring: readonly Wiring[], work: () => Promise<T>): Promise<T> =>
  current.run(wiring, work);

/** What the running invocation wired under `name`. */
export const wiredFor = (name: string) => (current.getStore() ?? []).filter((w) => w.name === name);
