import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RouteDef } from '#shared/routes/types.ts';

/** The contract's routes as the repository carries them: every route the two spec documents name. */
const SPEC_ROUTES_FILE = fileURLToPath(new URL('../../docs/contract-routes.txt', import.meta.url));

export interface SpecRoute {
  /** `METHOD path` exactly as the contract list spells it. */
  key: string;
  method: string;
  path: string;
  section: string;
  line: number;
}

/**
 * Spec spellings that are not plain path templates, mapped by hand to the `METHOD path` spellings
 * the route table may use for them (as a route's path or one of its aliases). The contract writes the
 * admin password reset as `{userId:password-reset}`: a `:password-reset` suffix on the user id
 * segment, which a route serves as `/api/users/{userId}:password-reset` (an alias) or
 * `/api/users/{userId}/password-reset`.
 */
export const SPEC_SPELLINGS: Readonly<Record<string, readonly string[]>> = {
  'PUT /api/users/{userId:password-reset}': [
    'PUT /api/users/{userId}:password-reset',
    'PUT /api/users/{userId}/password-reset',
  ],
};

const LINE = /^(GET|POST|PUT|PATCH|DELETE) (\/\S*)\s*(?:#\s*(.*))?$/;

export function parseSpecRoutes(text: string): SpecRoute[] {
  const out: SpecRoute[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const m = LINE.exec(line);
    if (!m) throw new Error(`contract-routes.txt line ${i + 1} is not "METHOD /path  # section": ${raw}`);
    const [, method, path, section = ''] = m;
    const key = `${method} ${path}`;
    if (/\{[^}]*[^\w}][^}]*\}/.test(path!) && !SPEC_SPELLINGS[key]) {
      throw new Error(
        `contract-routes.txt line ${i + 1}: "${key}" has a parameter that is not a plain {name}; map it in SPEC_SPELLINGS`,
      );
    }
    out.push({ key, method: method!, path: path!, section: section.trim(), line: i + 1 });
  });
  return out;
}

export function readSpecRoutes(file = SPEC_ROUTES_FILE): SpecRoute[] {
  if (!existsSync(file)) {
    throw new Error(`${file} is missing: docs/contract-routes.txt is part of the repository`);
  }
  return parseSpecRoutes(readFileSync(file, 'utf8'));
}

/** Parameter names do not matter for matching: `/api/tools/{id}/config` and `{toolId}` have one shape. */
export const shapeOf = (key: string) => key.replace(/\{[^}]*\}/g, '{}');
const paramNames = (path: string) => [...path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!);

export interface TableSpelling {
  key: string;
  route: RouteDef;
}

/** Every `METHOD path` the route table serves: each route's path and its aliases. */
export const tableSpellings = (routes: readonly RouteDef[]): TableSpelling[] =>
  routes.flatMap((route) =>
    [route.path, ...(route.aliases ?? [])].map((p) => ({ key: `${route.method} ${p}`, route })),
  );

export interface SpecMatch {
  spec: SpecRoute;
  /** The table spelling that serves it, if any. */
  found?: TableSpelling;
  /** Set when the shapes match but the parameter names differ (reported, not a failure). */
  renamed?: string;
}

/** Matches each spec route to the table by method and shape, through SPEC_SPELLINGS where listed. */
export function matchSpecRoutes(spec: readonly SpecRoute[], routes: readonly RouteDef[]): SpecMatch[] {
  const byShape = new Map<string, TableSpelling>();
  for (const s of tableSpellings(routes)) byShape.set(shapeOf(s.key), s);
  return spec.map((route) => {
    for (const candidate of SPEC_SPELLINGS[route.key] ?? [route.key]) {
      const found = byShape.get(shapeOf(candidate));
      if (!found) continue;
      const want = paramNames(candidate).join(',');
      const have = paramNames(found.key).join(',');
      return { spec: route, found, ...(want !== have ? { renamed: `${route.key} is served as ${found.key}` } : {}) };
    }
    return { spec: route };
  });
}
