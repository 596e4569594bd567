import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { API_GROUPS, SCHEDULED, WORKERS } from '#shared/routes/groups.ts';
import { deployedRoutes } from '#api/routes.ts';

export const ROOT = join(import.meta.dirname, '..');
export const OUT_DIR = join(ROOT, 'bench', 'out');

export interface BenchFunction {
  name: string;
  kind: 'api' | 'fallback' | 'worker';
  /** Absolute path of `functions/<name>/index.ts`. */
  entry: string;
  /** False when the group has deployed routes but its entry is not written yet. */
  exists: boolean;
}

/** Every Lambda the stack deploys: API groups with deployed routes, the fallback, the workers, the scheduled ones. */
export function benchFunctions(): BenchFunction[] {
  const withRoutes = new Set(deployedRoutes.map((r) => r.group));
  const api = (Object.keys(API_GROUPS) as (keyof typeof API_GROUPS)[]).filter(
    (g) => g !== 'local-providers' && g !== 'fallback' && withRoutes.has(g),
  );
  const list: Omit<BenchFunction, 'entry' | 'exists'>[] = [
    ...api.map((name) => ({ name, kind: 'api' as const })),
    { name: 'fallback', kind: 'fallback' as const },
    ...Object.keys(WORKERS).map((name) => ({ name, kind: 'worker' as const })),
    // Scheduled functions start cold like a worker: no request to answer, only their imports.
    ...Object.keys(SCHEDULED).map((name) => ({ name, kind: 'worker' as const })),
  ];
  return list.map((f) => {
    const entry = join(ROOT, 'functions', f.name, 'index.ts');
    return { ...f, entry, exists: existsSync(entry) };
  });
}
