import { wiredFor, type Wiring } from './wiring.ts';

/**
 * Upward queries: what a lower area must ask of a higher one (which agents of the tenant exist, what
 * their bases are). The lower area declares the query with its types; the entry point of each
 * function that asks it wires the answer from the higher area (wiring.ts), as `apiHandler` takes the
 * credential resolvers. A question nobody answers is a wiring fault and throws.
 */
export interface Query<A extends unknown[], R> {
  name: string;
  /** Types only: the arguments and result the answer must take and give. */
  readonly _types?: (...args: A) => R;
}

export const defineQuery = <A extends unknown[], R>(name: string): Query<A, R> => ({ name: `query:${name}` });

/** The answer to `query`, for an entry point's wiring. */
export const answer = <A extends unknown[], R>(query: Query<A, R>, run: (...args: A) => Promise<R>): Wiring => ({
  name: query.name,
  run: (args) => run(...(args as A)),
});

export async function ask<A extends unknown[], R>(query: Query<A, R>, ...args: A): Promise<R> {
  const [answerer] = wiredFor(query.name);
  if (!answerer) throw new Error(`${query.name} was asked, but this function wires no answer for it`);
  return (await answerer.run(args)) as R;
}
