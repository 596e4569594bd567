import { FormatUnsupported } from './port.ts';

/**
 * The local models' structured answers: a JSON value valid against a JSON Schema, made the same way
 * every time so a test or a person can predict it (docs/try/llm-gateway.md, "Shapes and tool
 * choices"). Values come from a hint first (a JSON object the conversation holds), where a value
 * fits its part of the schema; otherwise strings are the conversation's text, numbers the smallest
 * allowed from 0, booleans false, enums and consts their first value, arrays one item (or
 * `minItems`), objects every property (only the required ones deep down, so recursive schemas end).
 * What it cannot follow (an unmatched `pattern`, `not`, `if`, a remote `$ref`) is refused by name.
 */
type Schema = Record<string, unknown>;

interface Context {
  root: Schema;
  text: string;
  depth: number;
  path: string;
  /** An item's position, so unique array items differ. */
  variant: number;
}

/** Past this nesting only required properties and minimal arrays are made: recursive schemas end. */
const FULL_DEPTH = 4;
const MAX_DEPTH = 32;
/** A pattern is tried on texts this long at most: the caller's expression runs on the gateway's time. */
const PATTERN_TEXT = 2_000;
const REFUSED = ['not', 'if', 'contains', '$dynamicRef', '$recursiveRef'] as const;

const FORMATS: Record<string, string> = {
  'date-time': '1970-01-01T00:00:00Z',
  date: '1970-01-01',
  time: '00:00:00Z',
  duration: 'P1D',
  email: 'someone@example.com',
  'idn-email': 'someone@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  iri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
};

const isObject = (v: unknown): v is Schema => !!v && typeof v === 'object' && !Array.isArray(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function refuse(ctx: Context, why: string): never {
  throw new FormatUnsupported(`${ctx.path || 'the schema'}: ${why}`);
}

function resolveRef(ref: string, ctx: Context): Schema | boolean {
  if (ref !== '#' && !ref.startsWith('#/')) refuse(ctx, `$ref ${ref} is not a reference inside the schema`);
  let at: unknown = ctx.root;
  for (const raw of ref.slice(2).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    at = isObject(at) || Array.isArray(at) ? (at as Record<string, unknown>)[key] : undefined;
  }
  if (!isObject(at) && typeof at !== 'boolean') refuse(ctx, `$ref ${ref} points at nothing`);
  return at as Schema | boolean;
}

/** allOf as one schema: properties and required lists joined, the rest the later branch's. */
function merged(s: Schema, ctx: Context): Schema {
  const parts = (s.allOf as unknown[]).map((p) =>
    isObject(p) && typeof p.$ref === 'string' ? resolveRef(p.$ref, ctx) : p,
  );
  const { allOf: _allOf, ...rest } = s;
  let out: Schema = rest;
  for (const p of parts) {
    if (!isObject(p)) continue;
    const part = p.allOf ? merged(p, ctx) : p;
    out = {
      ...out,
      ...part,
      properties: { ...(out.properties as Schema), ...(part.properties as Schema) },
      required: [...new Set([...((out.required as string[]) ?? []), ...((part.required as string[]) ?? [])])],
    };
  }
  return out;
}

const typeOfValue = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

function chosenType(s: Schema, hint: unknown, ctx: Context): string | undefined {
  const declared = s.type;
  const types = Array.isArray(declared) ? (declared as string[]) : typeof declared === 'string' ? [declared] : null;
  if (!types) {
    if (s.properties || s.additionalProperties !== undefined || s.required) return 'object';
    if (s.items || s.prefixItems) return 'array';
    return undefined;
  }
  const hinted = typeOfValue(hint);
  const fits = types.find((t) => t === hinted || (t === 'number' && hinted === 'integer'));
  if (fits) return fits;
  if (ctx.depth > FULL_DEPTH && types.includes('null')) return 'null';
  return types.find((t) => t !== 'null') ?? types[0];
}

function branch(options: unknown[], hint: unknown, ctx: Context): unknown {
  const isNull = (o: unknown) => isObject(o) && (o.type === 'null' || same(o.enum, [null]));
  const preferred =
    ctx.depth > FULL_DEPTH ? (options.find(isNull) ?? options[0]) : (options.find((o) => !isNull(o)) ?? options[0]);
  return generate(preferred, hint, ctx);
}

export function jsonFromSchema(schema: unknown, text: string, hint?: unknown): unknown {
  const root = isObject(schema) ? schema : {};
  return generate(schema, hint, { root, text, depth: 0, path: '', variant: 0 });
}

function generate(raw: unknown, hint: unknown, ctx: Context): unknown {
  if (raw === false) refuse(ctx, 'false admits no value');
  if (!isObject(raw)) return hint !== undefined ? hint : ctx.text;
  if (ctx.depth > MAX_DEPTH) refuse(ctx, `the schema nests deeper than ${MAX_DEPTH} levels`);
  for (const keyword of REFUSED) if (keyword in raw) refuse(ctx, `${keyword} is not supported by the local model`);
  let s = raw;
  if (typeof s.$ref === 'string') {
    const target = resolveRef(s.$ref, ctx);
    const { $ref: _ref, ...rest } = s;
    s = Object.keys(rest).length && isObject(target) ? { ...target, ...rest } : (target as Schema);
    return generate(s, hint, { ...ctx, depth: ctx.depth + 1 });
  }
  if (Array.isArray(s.allOf)) s = merged(s, ctx);
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) {
    if (!s.enum.length) refuse(ctx, 'an empty enum admits no value');
    return s.enum.find((e) => same(e, hint)) ?? s.enum[ctx.variant % s.enum.length];
  }
  const options = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(options) && options.length) return branch(options, hint, ctx);
  switch (chosenType(s, hint, ctx)) {
    case 'null':
      return null;
    case 'boolean':
      return typeof hint === 'boolean' ? hint : ctx.variant % 2 === 1;
    case 'integer':
      return number(s, hint, ctx, true);
    case 'number':
      return number(s, hint, ctx, false);
    case 'string':
      return string(s, hint, ctx);
    case 'array':
      return array(s, hint, ctx);
    case 'object':
      return object(s, hint, ctx);
    default:
      return hint !== undefined ? hint : ctx.text;
  }
}

function string(s: Schema, hint: unknown, ctx: Context): string {
  const format = typeof s.format === 'string' ? s.format : undefined;
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Number.POSITIVE_INFINITY;
  const fitted = (v: string) => {
    let chars = [...v];
    if (chars.length > max) chars = chars.slice(0, max);
    const filler = v.trim() ? v : 'x';
    while (chars.length < min) chars = [...chars, ...(chars.length ? [' '] : []), ...filler];
    return chars.slice(0, Math.max(min, Math.min(chars.length, max))).join('');
  };
  const suffix = ctx.variant ? ` ${ctx.variant + 1}` : '';
  if (typeof s.pattern === 'string') {
    let re: RegExp;
    try {
      re = new RegExp(s.pattern, 'u');
    } catch {
      refuse(ctx, `pattern ${s.pattern} is not a regular expression`);
    }
    const words = ctx.text.slice(0, PATTERN_TEXT).split(/\s+/).slice(0, 100);
    const candidates = [hint, ctx.text, ...words, format ? FORMATS[format] : undefined, '0', 'a', 'A'];
    for (const c of candidates)
      if (
        typeof c === 'string' &&
        c.length <= PATTERN_TEXT &&
        re.test(c) &&
        [...c].length >= min &&
        [...c].length <= max
      )
        return c;
    refuse(ctx, `the local model cannot make a string that matches pattern ${s.pattern}`);
  }
  if (format && FORMATS[format]) return FORMATS[format];
  return fitted(typeof hint === 'string' ? hint : `${ctx.text}${suffix}`);
}

function number(s: Schema, hint: unknown, ctx: Context, integer: boolean): number {
  const num = (k: string) => (typeof s[k] === 'number' ? (s[k] as number) : undefined);
  // Draft 4 spells an exclusive bound as a boolean beside minimum / maximum.
  const exMin = num('exclusiveMinimum') ?? (s.exclusiveMinimum === true ? num('minimum') : undefined);
  const exMax = num('exclusiveMaximum') ?? (s.exclusiveMaximum === true ? num('maximum') : undefined);
  const min = s.exclusiveMinimum === true ? undefined : num('minimum');
  const max = s.exclusiveMaximum === true ? undefined : num('maximum');
  const step = num('multipleOf');
  const ok = (v: unknown): v is number =>
    typeof v === 'number' &&
    Number.isFinite(v) &&
    (!integer || Number.isInteger(v)) &&
    (min === undefined || v >= min) &&
    (max === undefined || v <= max) &&
    (exMin === undefined || v > exMin) &&
    (exMax === undefined || v < exMax) &&
    (step === undefined || Math.abs(v / step - Math.round(v / step)) < 1e-9);
  if (ok(hint)) return hint;
  const low = min ?? exMin;
  const high = max ?? exMax;
  const unit = step ?? 1;
  const snap = (v: number) => {
    const up = step ? Math.ceil(v / step) * step : v;
    return integer ? Math.ceil(up) : up;
  };
  const candidates = [
    0,
    low,
    low === undefined ? undefined : low + unit,
    high,
    high === undefined ? undefined : high - unit,
  ];
  if (low !== undefined && high !== undefined) candidates.push((low + high) / 2);
  for (const c of candidates) {
    if (c === undefined) continue;
    const first = [snap(c), c].find(ok);
    if (first === undefined) continue;
    // Unique array items: the next allowed values after the first.
    const varied = first + unit * ctx.variant;
    return ok(varied) ? varied : first;
  }
  refuse(ctx, 'no number fits its bounds');
}

function array(s: Schema, hint: unknown, ctx: Context): unknown[] {
  const minItems = typeof s.minItems === 'number' ? s.minItems : 0;
  const maxItems = typeof s.maxItems === 'number' ? s.maxItems : Number.POSITIVE_INFINITY;
  const prefix = (Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : []) as unknown[];
  const rest = Array.isArray(s.items) ? (s.additionalItems ?? true) : (s.items ?? true);
  const hinted = Array.isArray(hint) ? hint : undefined;
  const wanted = hinted?.length ?? (ctx.depth >= FULL_DEPTH ? 0 : 1);
  const count = Math.min(Math.max(wanted, minItems), maxItems);
  if (rest === false && minItems > prefix.length) refuse(ctx, 'minItems is more than the items the schema allows');
  const length = rest === false ? Math.min(count, prefix.length) : count;
  const out: unknown[] = [];
  for (let i = 0; i < length; i++) {
    const item = i < prefix.length ? prefix[i] : rest;
    const unique = s.uniqueItems === true;
    out.push(
      generate(item, hinted?.[i], {
        ...ctx,
        depth: ctx.depth + 1,
        path: `${ctx.path}[${i}]`,
        variant: unique ? i : 0,
      }),
    );
  }
  if (s.uniqueItems === true && new Set(out.map((v) => JSON.stringify(v))).size < out.length)
    refuse(ctx, 'the local model cannot make these array items unique');
  return out;
}

function object(s: Schema, hint: unknown, ctx: Context): Record<string, unknown> {
  const properties = isObject(s.properties) ? s.properties : {};
  const required = Array.isArray(s.required) ? (s.required as string[]) : [];
  const extra = s.additionalProperties;
  const hinted = isObject(hint) ? hint : undefined;
  // A free object (no properties named) takes the conversation's object as it is.
  if (!Object.keys(properties).length && !required.length && hinted && extra === undefined) return hinted;
  const names = ctx.depth >= FULL_DEPTH ? required.filter((n) => n in properties) : Object.keys(properties);
  for (const n of required) if (!names.includes(n)) names.push(n);
  const minProperties = typeof s.minProperties === 'number' ? s.minProperties : 0;
  for (const n of Object.keys(properties)) if (names.length < minProperties && !names.includes(n)) names.push(n);
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const sub = name in properties ? properties[name] : extra;
    if (sub === false || (sub === undefined && extra === false))
      refuse(ctx, `required property ${name} is not allowed by additionalProperties: false`);
    out[name] = generate(sub ?? true, hinted?.[name], {
      ...ctx,
      depth: ctx.depth + 1,
      path: ctx.path ? `${ctx.path}.${name}` : name,
      variant: 0,
    });
  }
  for (let i = 1; Object.keys(out).length < minProperties; i++) {
    if (extra === false) refuse(ctx, 'minProperties is more than the properties the schema allows');
    out[`property_${i}`] = generate(extra ?? true, undefined, { ...ctx, depth: ctx.depth + 1, variant: 0 });
  }
  return out;
}
