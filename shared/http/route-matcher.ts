import type { HttpMethod, RouteDef } from '#shared/routes/types.ts';

/** What matching needs of a route; the fallback function has only these, not the definitions. */
export interface RoutePattern {
  method: HttpMethod;
  path: string;
  aliases?: readonly string[];
}

export type RouteMatch<R extends RoutePattern = RouteDef> =
  | { kind: 'route'; route: R; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: HttpMethod[] }
  | { kind: 'not-found' };

/** A template segment: literal text, a whole-segment parameter, or parameters with text around them. */
type Segment = string | { regex: RegExp | null };

interface Pattern<R> {
  route: R;
  segments: Segment[];
  names: string[];
  /** One digit a segment (0 literal, 1 parameter with text, 2 parameter): the smaller, the more specific. */
  rank: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

function compile<R>(route: R, path: string): Pattern<R> {
  const names: string[] = [];
  const segments = path.split('/').map((text): Segment => {
    const parts = text.split(/\{([^}]+)\}/);
    if (parts.length === 1) return text;
    names.push(...parts.filter((_, i) => i % 2));
    if (parts.length === 3 && !parts[0] && !parts[2]) return { regex: null };
    return { regex: new RegExp(`^${parts.map((p, i) => (i % 2 ? '(.+)' : escapeRegExp(p))).join('')}$`) };
  });
  const rank = segments.map((s) => (typeof s === 'string' ? 0 : s.regex ? 1 : 2)).join('');
  return { route, segments, names, rank };
}

/** The raw (still percent-encoded) parameter values when the path fits the template, else null. */
function capture(segments: Segment[], given: string[]): string[] | null {
  const values: string[] = [];
  for (const [i, segment] of segments.entries()) {
    const text = given[i]!;
    if (typeof segment === 'string') {
      if (segment !== text) return null;
    } else if (!segment.regex) {
      if (!text) return null;
      values.push(text);
    } else {
      const m = segment.regex.exec(text);
      if (!m) return null;
      values.push(...m.slice(1));
    }
  }
  return values;
}

/** Whether `a` is more literal than `b` in some segment and less in none (both fit one path). */
const moreLiteral = (a: Pattern<unknown>, b: Pattern<unknown>) =>
  a.rank !== b.rank && [...a.rank].every((digit, i) => digit <= b.rank[i]!);

/**
 * Matches requests against a route table the way API Gateway matches route keys: a `{param}` is one
 * non-empty segment, possibly with literal text beside it (`{userId}:password-reset`); where several
 * routes of the method fit, the one literal soonest wins (`/api/tools/built-in` over
 * `/api/tools/{toolId}`). A path that fits only other methods is 405 with theirs, in table order;
 * parameters are percent-decoded, and one that does not decode (`%zz`) names no resource (404).
 *
 * A path that a more literal spelling fits names that literal resource: a template it also fits
 * does not serve it under any method (`PUT /api/tools/built-in` reaches `PUT /api/tools/{toolId}`
 * at API Gateway, and is answered 405), so `methods` lists only what the most literal fitting
 * spellings serve, the `Allow` of every 405 (the runtime's, the fallback's, the local server's).
 * Used by the local server, the streaming front door, the runtime and the `$default` fallback.
 */
export function createRouteMatcher<R extends RoutePattern>(
  routes: readonly R[],
  options: {
    /** The GET routes a HEAD of their path reaches (API Gateway: a HEAD route beside them). */
    headServedBy?: (route: R) => boolean;
  } = {},
) {
  // Compiled on the first request, not at import: the fallback function's cold start is this module.
  let byDepth: Map<number, Pattern<R>[]> | undefined;
  const candidates = (path: string) => {
    if (!byDepth) {
      byDepth = new Map();
      for (const route of routes) {
        for (const spelling of [route.path, ...(route.aliases ?? [])]) {
          const pattern = compile(route, spelling);
          const depth = pattern.segments.length;
          byDepth.set(depth, [...(byDepth.get(depth) ?? []), pattern]);
        }
      }
    }
    const given = path.split('/');
    return (byDepth.get(given.length) ?? []).flatMap((pattern) => {
      const values = capture(pattern.segments, given);
      return values ? [{ pattern, values }] : [];
    });
  };
  const served = (found: { pattern: Pattern<R> }[]) => [
    ...new Set(
      found
        .filter(({ pattern }) => !found.some((other) => moreLiteral(other.pattern, pattern)))
        .map((f) => f.pattern.route.method),
    ),
  ];

  const match = (method: string, path: string): RouteMatch<R> => {
    const found = candidates(path);
    let best: (typeof found)[number] | undefined;
    const serves = (route: R) =>
      route.method === method ||
      (method === 'HEAD' && route.method === 'GET' && options.headServedBy?.(route) === true);
    for (const f of found) if (serves(f.pattern.route) && !(best && best.pattern.rank <= f.pattern.rank)) best = f;
    if (!best) {
      const allowed = served(found);
      return allowed.length ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
    }
    try {
      const { pattern, values } = best;
      return {
        kind: 'route',
        route: pattern.route,
        params: Object.fromEntries(pattern.names.map((n, i) => [n, decodeURIComponent(values[i]!)])),
      };
    } catch {
      return { kind: 'not-found' };
    }
  };
  /** Every method really served at the path: the `Allow` of its 405, empty for a 404. */
  const methods = (path: string): HttpMethod[] => served(candidates(path));
  /**
   * Whether some path of a route's template names a more literal spelling that does not serve the
   * route's method, so the route can answer 405 (the API document lists it).
   */
  const shadows = (route: RoutePattern): boolean => {
    const own = compile(route, route.path);
    return routes.some((other) =>
      [other.path, ...(other.aliases ?? [])].some((spelling) => {
        const sibling = compile(other, spelling);
        if (sibling.segments.length !== own.segments.length || !moreLiteral(sibling, own)) return false;
        const sample = spelling.replace(/\{[^}]+\}/g, 'x');
        return capture(own.segments, sample.split('/')) !== null && !methods(sample).includes(route.method);
      }),
    );
  };
  return Object.assign(match, { methods, shadows });
}
