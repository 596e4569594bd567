import { config } from '#shared/platform/config.ts';

/**
 * Names and limits of the vault; the route schemas (and so the API document) and the sync job use
 * these patterns as they are, so what is documented is what the server accepts. They are plain
 * regular expressions (no lookahead), so every JSON Schema tool and test generator reads them.
 *
 * Reserved environment names: `sync` (the literal sibling route `POST /api/secrets/sync/{environment}`,
 * which a secret route would otherwise shadow) and `tenants` (tenant secrets' namespace, tenant-secrets.ts).
 */
export const RESERVED_ENVIRONMENTS = ['sync', 'tenants'] as const;

const ENV_CHARS = [...'abcdefghijklmnopqrstuvwxyz0123456789-'];
/** A character class of `chars` (ranges where they run on), `-` last. */
function charClass(chars: string[]): string {
  const runs: string[] = [];
  const sorted = chars.filter((c) => c !== '-').sort();
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1]!.charCodeAt(0) === sorted[j]!.charCodeAt(0) + 1) j++;
    runs.push(j - i >= 2 ? `${sorted[i]}-${sorted[j]}` : sorted.slice(i, j + 1).join(''));
    i = j + 1;
  }
  return `[${runs.join('')}${chars.includes('-') ? '-' : ''}]`;
}
const repeat = (cls: string, n: number) => (n === 0 ? '' : n === 1 ? cls : `${cls}{${n}}`);

/** Strings of `chars`, `min`-`max` long, other than the `excluded` words, as alternatives without lookahead. */
function patternExcluding(chars: string[], min: number, max: number, excluded: readonly string[]): string {
  const any = charClass(chars);
  const lengths = [...new Set(excluded.map((w) => w.length))].sort((a, b) => a - b);
  const alternatives: string[] = [];
  // Every length no excluded word has.
  let from = min;
  for (const length of [...lengths, max + 1]) {
    const to = Math.min(length - 1, max);
    if (to >= from) alternatives.push(from === to ? repeat(any, from) : `${any}{${from},${to}}`);
    from = length + 1;
  }
  // At a length some words have: a prefix of one of them, then a character none continues with.
  for (const length of lengths.filter((l) => l >= min && l <= max)) {
    const words = excluded.filter((w) => w.length === length);
    const walk = (prefix: string) => {
      const next = [...new Set(words.filter((w) => w.startsWith(prefix)).map((w) => w[prefix.length]!))];
      const others = chars.filter((c) => !next.includes(c));
      if (others.length) alternatives.push(`${prefix}${charClass(others)}${repeat(any, length - prefix.length - 1)}`);
      for (const c of next) if (prefix.length + 1 < length) walk(prefix + c);
    };
    walk('');
  }
  return `^(?:${alternatives.join('|')})$`;
}

let environmentRegExp: RegExp | undefined;
/**
 * Built on first use: computing the pattern took about 0.5 ms of the cold start of every function
 * that resolves secrets.
 */
export const environmentPattern = () =>
  (environmentRegExp ??= new RegExp(patternExcluding(ENV_CHARS, 1, 32, RESERVED_ENVIRONMENTS)));
/**
 * 1-128 of `A-Za-z0-9_.-`, but not `.` or `..` (URL clients resolve those segments, so such keys
 * could never be addressed): a first character other than `.`, or `.` and then one other than
 * `.`, or `..` and at least one more.
 */
export const KEY_PATTERN =
  /^(?:[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}|\.[A-Za-z0-9_-][A-Za-z0-9_.-]{0,126}|\.\.[A-Za-z0-9_.-]{1,126})$/;
/** SSM standard tier: 4 KB per value, counted in UTF-8 bytes. */
export const MAX_VALUE_BYTES = 4096;
/** A deleted secret keeps its parameter (and SSM's version history) with this value. */
export const DELETED_MARKER = '__deleted__';
export const MASK = '***';

const valueBytes = (value: string) => Buffer.byteLength(value, 'utf8');

export const isValidKey = (key: string) => KEY_PATTERN.test(key);

export type ValueProblem = 'empty' | 'too-large' | 'reserved';

export function valueProblem(value: string): ValueProblem | null {
  if (value.length === 0) return 'empty';
  if (valueBytes(value) > MAX_VALUE_BYTES) return 'too-large';
  if (value === DELETED_MARKER) return 'reserved';
  return null;
}

/** `/<app>/<stage>/vault/{environment}`: the environment's secrets. */
export const environmentPath = (environment: string) => `${config.paramPrefix}/vault/${environment}`;
export const secretName = (environment: string, key: string) => `${environmentPath(environment)}/${key}`;
/** `/<app>/<stage>/vault-sources/{environment}`: what the deployment provides for sync to import. */
export const sourcePath = (environment: string) => `${config.paramPrefix}/vault-sources/${environment}`;

/** The last path segment below `path`, or null when the name is deeper or elsewhere. */
export function childName(path: string, name: string): string | null {
  const prefix = `${path}/`;
  if (!name.startsWith(prefix)) return null;
  const rest = name.slice(prefix.length);
  return rest.includes('/') ? null : rest;
}
