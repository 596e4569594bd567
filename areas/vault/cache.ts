/** A small in-memory map whose entries expire `ttlMs` after they were set. */
export function ttlCache<T>(ttlMs: number, now: () => number = () => Date.now()) {
  const entries = new Map<string, { value: T; expiresAt: number }>();
  return {
    get(key: string): T | undefined {
      const hit = entries.get(key);
      if (!hit) return undefined;
      if (hit.expiresAt <= now()) {
        entries.delete(key);
        return undefined;
      }
      return hit.value;
    },
    set(key: string, value: T) {
      entries.set(key, { value, expiresAt: now() + ttlMs });
    },
    delete(key: string) {
      entries.delete(key);
    },
    clear() {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
