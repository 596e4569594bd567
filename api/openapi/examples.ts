import type { JsonSchema } from './json-schema.ts';

/** Sentinel for "no value satisfies this schema with the simple rules below". */
const NONE = Symbol('none');
type Example = unknown | typeof NONE;

const UUID = '3f1c2a7e-8b4d-4e6f-9a0b-1c2d3e4f5a6b';
const DATE_TIME = '2026-01-31T09:15:00.000Z';

const BY_FORMAT: Record<string, string> = {
  email: 'user@example.com',
  uuid: UUID,
  'date-time': DATE_TIME,
  date: '2026-01-31',
  time: '09:15:00Z',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
};

/** Tried in order against a string's `pattern`; the first that matches is the example. */
const PATTERN_CANDIDATES = [
  'example',
  'Example',
  'example-1',
  'EXAMPLE',
  UUID,
  'Example-Passw0rd',
  '123456',
  '1',
  'ab12',
  DATE_TIME,
  '2026-01-31',
  'user@example.com',
  'https://example.com/',
  'USD',
  'en',
  'en-US',
];

/**
 * A plain example value for a JSON schema: what the schema shows in its own `examples`, else one
 * built from types, formats, property names, enums, limits and defaults. Only required object
 * properties are filled in unless `optional` is set, so a request example is the smallest valid one. Returns undefined when a value cannot be built
 * with these rules (an unusual pattern); a route then shows its schema without an example, or its
 * author adds `.check(z.meta({ examples: [...] }))` to the schema.
 */
export function exampleFor(
  schema: JsonSchema,
  components: Record<string, JsonSchema> = {},
  { optional = false }: { optional?: boolean } = {},
): unknown {
  const value = build(schema, components, 0, !optional);
  return value === NONE ? undefined : value;
}

function build(
  schema: JsonSchema,
  components: Record<string, JsonSchema>,
  depth: number,
  requiredOnly: boolean,
  name = '',
): Example {
  if (depth > 8) return NONE;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if ('default' in schema) return schema.default;
  if (typeof schema.$ref === 'string') {
    const target = components[schema.$ref.replace('#/components/schemas/', '')];
    return target ? build(target, components, depth + 1, requiredOnly, name) : NONE;
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as JsonSchema[] | undefined;
    if (!options) continue;
    const ordered = [...options.filter((o) => o.type !== 'null'), ...options.filter((o) => o.type === 'null')];
    for (const option of ordered) {
      const v = build(option, components, depth + 1, requiredOnly, name);
      if (v !== NONE) return v;
    }
    return NONE;
  }
  if (Array.isArray(schema.allOf) && schema.type === undefined) {
    const merged = Object.assign({}, ...(schema.allOf as JsonSchema[]));
    return build(merged, components, depth + 1, requiredOnly, name);
  }
  const type = Array.isArray(schema.type)
    ? ((schema.type as string[]).find((t) => t !== 'null') ?? 'null')
    : schema.type;
  switch (type) {
    case 'object':
      return objectExample(schema, components, depth, requiredOnly);
    case 'array': {
      const item = schema.items
        ? build(schema.items as JsonSchema, components, depth + 1, requiredOnly, singular(name))
        : 'string';
      if (item === NONE) return (schema.minItems as number | undefined) ? NONE : [];
      return Array.from({ length: Math.max(1, (schema.minItems as number | undefined) ?? 1) }, () => item);
    }
    case 'string':
      return stringExample(schema, name);
    case 'integer':
    case 'number':
      return numberExample(schema, type === 'integer');
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return schema.properties ? objectExample(schema, components, depth, requiredOnly) : NONE;
  }
}

function objectExample(
  schema: JsonSchema,
  components: Record<string, JsonSchema>,
  depth: number,
  requiredOnly: boolean,
): Example {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (requiredOnly && !required.has(name)) continue;
    const v = build(property, components, depth + 1, requiredOnly, name);
    if (v === NONE) return NONE;
    out[name] = v;
  }
  return out;
}

/** Property names that say what a plain string holds. */
const BY_NAME: [RegExp, string][] = [
  [/^id$|Id$/, UUID],
  [/email/i, 'user@example.com'],
  [/At$|Date$|^date$/, DATE_TIME],
  [/url|uri/i, 'https://example.com/'],
  [/password/i, 'Example-Passw0rd'],
  [/currency/i, 'USD'],
  [/locale/i, 'en'],
  [/slug/i, 'example'],
];

function stringExample(schema: JsonSchema, name: string): Example {
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = (schema.maxLength as number | undefined) ?? Infinity;
  const patterns = [schema.pattern, ...((schema.allOf ?? []) as JsonSchema[]).map((s) => s.pattern)].filter(
    (p): p is string => typeof p === 'string',
  );
  const fits = (s: string) => s.length >= min && s.length <= max && patterns.every((p) => safeTest(p, s));
  const byFormat = BY_FORMAT[schema.format as string];
  if (byFormat !== undefined) return fits(byFormat) ? byFormat : NONE;
  const hinted = BY_NAME.filter(([re]) => re.test(name)).map(([, v]) => v);
  const candidates = [...hinted, ...(patterns.length ? PATTERN_CANDIDATES : ['string', 'example', 's'])];
  const found = candidates.find(fits);
  if (found !== undefined) return found;
  if (!patterns.length && min > 0 && min <= 10_000) return 'x'.repeat(min);
  return NONE;
}

const singular = (name: string) => name.replace(/ies$/, 'y').replace(/s$/, '');

function numberExample(schema: JsonSchema, integer: boolean): Example {
  const exclusiveMin = schema.exclusiveMinimum as number | undefined;
  const low =
    (schema.minimum as number | undefined) ??
    (exclusiveMin === undefined ? undefined : exclusiveMin + (integer ? 1 : 0.5));
  const high = (schema.maximum as number | undefined) ?? Infinity;
  const value = Math.min(low ?? 1, high);
  return integer ? Math.floor(value) : value;
}

function safeTest(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    try {
      return new RegExp(pattern).test(value);
    } catch {
      return false;
    }
  }
}
