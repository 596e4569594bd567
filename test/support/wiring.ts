import { withWiring, type Wiring } from '#shared/data/wiring.ts';

/**
 * Runs a use case as the named function runs it: under that function's wiring (the subscribers of
 * the events it emits, the answers to the queries it asks), for tests that call an area directly.
 */
export async function asFunction<T>(name: string, work: () => Promise<T>): Promise<T> {
  const { handler } = (await import(`../../functions/${name}/index.ts`)) as { handler: { wiring: readonly Wiring[] } };
  return withWiring(handler.wiring, work);
}
