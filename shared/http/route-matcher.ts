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

/**
 * Matches requests against a route table the way API Gateway matches route keys: a `{param}` is one
 * non-empty segment, possibly with literal text beside it (`{userId}:password-reset`); where several
 * routes of the method fit, the one literal soonest wins (`/api/tools/built-in` over
 * `/api/tools/{toolId}`). A path that fits only other methods is 405 with theirs, in table order;
 * parameters are percent-decoded, and one that does not decode (`%zz`) names no resource (404).
 * Used by the local server, the streaming front door and the `$default` fallback (`methods`).
 */
export function createRouteMatcher<R extends RoutePattern>(routes: readonly R[]) {
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
  const methodsOf = (found: { pattern: Pattern<R> }[]) => [...new Set(found.map((f) => f.pattern.route.method))];

  const match = (method: string, path: string): RouteMatch<R> => {
    const found = candidates(path);
    let best: (typeof found)[number] | undefined;
    for (const f of found)
      if (f.pattern.route.method === method && !(best && best.pattern.rank <= f.pattern.rank)) best = f;
    if (!best) {
      const allowed = methodsOf(found);
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
  /** Every method some route serves at the path (the fallback's 405 or 404). */
  const methods = (path: string): HttpMethod[] => methodsOf(candidates(path));
  return Object.assign(match, { methods });
}
