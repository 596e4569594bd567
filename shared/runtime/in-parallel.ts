/** Runs `run` over `list` with at most `atOnce` calls in flight, in the list's order of starting. */
export async function inParallel<T>(list: readonly T[], atOnce: number, run: (t: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(atOnce, list.length) }, async () => {
      while (next < list.length) await run(list[next++]!);
    }),
  );
}
