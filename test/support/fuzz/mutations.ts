import fc from 'fast-check';
import type { RouteDef } from '#shared/routes/types.ts';
import { DEFAULT_MAX_BODY_BYTES } from '#shared/runtime/middlewares/json-body.ts';
import { typeOfField } from './arbitraries.ts';
import {
  buildPath,
  isValidRequest,
  match,
  pathParamNames,
  queryString,
  schemaFields,
  takesJsonBody,
  validRequestArb,
  type RequestParts,
} from './route-matrix.ts';

/** One request as sent: what was mutated, and whether the route's schemas accept it. */
export interface FuzzRequest {
  mutation: string;
  method: string;
  path: string;
  rawQuery: string;
  rawBody?: string;
  contentType?: string;
  /** true: the schemas accept it; false: they refuse it (must be 4xx); null: not decidable here. */
  valid: boolean | null;
}

/** Strings a validator meets in the wild. None contains the leak markers the checks look for. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0007\b\f\v\r\n\t',
  '\u202eevil\u202c',
  '\ufeffbom',
  '\u200b\u200c\u200d',
  'e\u0301\u0301\u0301',
  '😀🏳️‍🌈👩‍👩‍👧‍👦',
  '\ud800',
  '\udfff\ud800',
  '𝕳𝖊𝖑𝖑𝖔',
  'Ω≈ç√∫˜µ≤≥÷',
  '中文字符',
  'ﷺ',
  '<script>alert(1)</script>',
  "' OR '1'='1' --",
  '"; DROP TABLE users; --',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, the placeholder is the payload
  '${7*7}{{7*7}}#{7*7}',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00%2e%2e%2f',
  'null',
  'undefined',
  'NaN',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'PLATFORM#TENANT',
  '#COUNT',
  'attribute_not_exists(pk)',
  ':pk',
  '1e400',
  '-0',
  '0x1F',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '12345678-1234-1234-1234-1234567890ab\n',
  ' 12345678-1234-1234-1234-1234567890ab',
  '12345678-1234-1234-1234-1234567890abx',
  '12345678_1234_1234_1234_1234567890ab',
  'x'.repeat(513),
];

const WEIRD_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0,
  Number.MAX_SAFE_INTEGER + 2,
  1e308,
  -1e308,
  5e-324,
  [],
  [null],
  {},
  { $gt: '' },
  JSON.parse('{"__proto__":{"polluted":true}}') as unknown,
  ['a', 1, null],
  'string',
];

const OUT_OF_RANGE = [
  -1,
  -2147483649,
  2147483648,
  1e21,
  1.0000001,
  0.5,
  1e6 + 1,
  Number.MAX_SAFE_INTEGER + 2,
  -1e308,
  1e308,
];

const MALFORMED_JSON = [
  '{',
  '}',
  '{"a":',
  '{"a":1,}',
  "{'a':1}",
  '{a:1}',
  '{"a":1}}',
  '{"a" 1}',
  '[1,2',
  'nul',
  'tru',
  '"unterminated',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '{"a":01}',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":undefined}',
  '\ufeff{}',
  '{"a":1}\u0000',
  '/* c */{}',
  '{"a":1}garbage',
  '\u0000',
  '\u00ff\u00fe',
];

const NON_OBJECT_JSON = ['[]', '[{}]', '"text"', '42', '-1', 'true', 'false', 'null', '""', '1e400'];

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'image/png',
  'application/jsonx',
  'text/json',
  '',
];

const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

type Parts = RequestParts;
interface Mutation {
  mutation: string;
  parts?: Parts;
  raw?: { body: string; contentType?: string };
  /** Known to be refused whatever the schemas say (over the size limit). */
  refused?: boolean;
}
type Mutator = (route: RouteDef, parts: Parts) => fc.Arbitrary<Mutation>;

const clone = <T>(v: T): T => (v === undefined ? v : structuredClone(v));
const pickKey = (obj: Record<string, unknown>, extra: string[] = []) => {
  const keys = [...new Set([...Object.keys(obj), ...extra])];
  return keys.length ? fc.constantFrom(...keys) : fc.constant('field');
};
const bodyObject = (parts: Parts) =>
  parts.body && typeof parts.body === 'object' && !Array.isArray(parts.body)
    ? (parts.body as Record<string, unknown>)
    : {};

const withBody = (parts: Parts, body: unknown): Parts => ({ ...parts, body });

/** Made once: making fc.string tokenizes its default values, and the mutators are made for every run. */
const EXTRA_FIELDS = fc.tuple(
  fc.dictionary(
    fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', 'pk', 'sk', 'gsi1pk', 'ttl')),
    fc.jsonValue({ maxDepth: 2 }),
    { maxKeys: 5 },
  ),
  fc.boolean(),
);

const bodyMutators: Mutator[] = [
  // wrong type for a declared field
  (route, parts) =>
    fc
      .tuple(pickKey(bodyObject(parts), Object.keys(schemaFields(route, 'body'))), fc.constantFrom(...WEIRD_VALUES))
      .map(([k, v]) => ({
        mutation: `body.${k} = ${JSON.stringify(v)}`,
        parts: withBody(parts, { ...bodyObject(parts), [k]: clone(v) }),
      })),
  // a required field missing
  (route, parts) => {
    const required = Object.keys(schemaFields(route, 'body')).length ? Object.keys(bodyObject(parts)) : [];
    return (required.length ? fc.constantFrom(...required) : fc.constant('none')).map((k) => {
      const body = { ...bodyObject(parts) };
      delete body[k];
      return { mutation: `body without ${k}`, parts: withBody(parts, body) };
    });
  },
  // only unknown fields, or extra fields beside valid ones
  (_route, parts) =>
    EXTRA_FIELDS.map(([extra, keep]) => ({
      mutation: `extra fields ${Object.keys(extra).join(',')}${keep ? '' : ' only'}`,
      parts: withBody(parts, keep ? { ...bodyObject(parts), ...extra } : extra),
    })),
  // huge strings (over each field's limit) and huge arrays
  (route, parts) =>
    fc
      .tuple(
        pickKey(bodyObject(parts), Object.keys(schemaFields(route, 'body'))),
        fc.constantFrom(300, 2_100, 5_000, 40_000),
        fc.constantFrom('x', 'é', '😀', ' '),
      )
      .map(([k, n, ch]) => ({
        mutation: `body.${k} = ${n} × ${JSON.stringify(ch)}`,
        parts: withBody(parts, { ...bodyObject(parts), [k]: ch.repeat(n) }),
      })),
  (route, parts) =>
    fc
      .tuple(
        pickKey(bodyObject(parts), Object.keys(schemaFields(route, 'body'))),
        fc.constantFrom(101, 1_000, 10_000),
        fc.constantFrom<unknown>('x', 1, null, {}),
      )
      .map(([k, n, v]) => ({
        mutation: `body.${k} = array of ${n}`,
        parts: withBody(parts, { ...bodyObject(parts), [k]: Array.from({ length: n }, () => clone(v)) }),
      })),
  // deep nesting, as a whole body and inside a field
  (route, parts) =>
    fc
      .tuple(
        fc.constantFrom(64, 1_000, 5_000),
        fc.boolean(),
        pickKey(bodyObject(parts), Object.keys(schemaFields(route, 'body'))),
      )
      .map(([depth, arrays, k]) => {
        const nested = arrays ? deepArray(depth) : deepObject(depth);
        const rest = JSON.stringify({ ...bodyObject(parts), [k]: 0 }).replace(`"${k}":0`, `"${k}":${nested}`);
        return { mutation: `nesting depth ${depth} (${arrays ? 'arrays' : 'objects'}) in ${k}`, raw: { body: rest } };
      }),
  () =>
    fc
      .constantFrom(1_000, 10_000)
      .map((depth) => ({ mutation: `whole body nested ${depth} deep`, raw: { body: deepObject(depth) } })),
  // unicode, control characters, injection-looking text
  (route, parts) =>
    fc
      .tuple(
        pickKey(bodyObject(parts), Object.keys(schemaFields(route, 'body'))),
        fc.oneof(
          fc.constantFrom(...NASTY_STRINGS),
          fc.string({ unit: 'binary', maxLength: 40 }),
          fc.string({ unit: 'grapheme', maxLength: 40 }),
        ),
      )
      .map(([k, s]) => ({
        mutation: `body.${k} = ${JSON.stringify(s).slice(0, 60)}`,
        parts: withBody(parts, { ...bodyObject(parts), [k]: s }),
      })),
  // numbers out of range, on numeric fields (or any field when there is none)
  (route, parts) => {
    const fields = schemaFields(route, 'body');
    const numeric = Object.keys(fields).filter((k) =>
      typeOfField(fields[k]!).some((t) => t === 'integer' || t === 'number'),
    );
    return fc
      .tuple(
        pickKey(bodyObject(parts), numeric.length ? numeric : Object.keys(fields)),
        fc.oneof(fc.constantFrom(...OUT_OF_RANGE), fc.double()),
      )
      .map(([k, n]) => {
        const body = { ...bodyObject(parts), [k]: Number.isFinite(n) ? n : 0 };
        const raw = JSON.stringify(body).replace(
          `"${k}":0`,
          `"${k}":${Number.isFinite(n) ? JSON.stringify(n) : '1e400'}`,
        );
        return Number.isFinite(n)
          ? { mutation: `body.${k} = ${n}`, parts: withBody(parts, body) }
          : { mutation: `body.${k} = 1e400 (Infinity)`, raw: { body: raw } };
      });
  },
  // not an object at all
  () => fc.constantFrom(...NON_OBJECT_JSON).map((b) => ({ mutation: `body ${b}`, raw: { body: b } })),
  // malformed JSON, including a valid body cut short
  (_route, parts) =>
    fc.oneof(
      fc.constantFrom(...MALFORMED_JSON).map((b) => ({ mutation: `malformed ${JSON.stringify(b)}`, raw: { body: b } })),
      fc.nat().map((n) => {
        const full = JSON.stringify(parts.body ?? {});
        const cut = full.slice(0, Math.max(1, n % full.length));
        return { mutation: `truncated at ${cut.length}`, raw: { body: cut } };
      }),
    ),
  // the right JSON under a wrong content type
  (_route, parts) =>
    fc.constantFrom(...WRONG_CONTENT_TYPES).map((ct) => ({
      mutation: `content-type ${JSON.stringify(ct)}`,
      raw: { body: JSON.stringify(parts.body ?? {}), contentType: ct },
    })),
  // over the body limit (valid JSON otherwise)
  (route, parts) =>
    fc.integer({ min: 1, max: 2_000 }).map((over) => {
      const limit = route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
      const base = JSON.stringify({ ...bodyObject(parts), pad: '' });
      const body = base.replace('"pad":""', `"pad":"${'p'.repeat(limit - Buffer.byteLength(base) + over)}"`);
      return { mutation: `body ${over} bytes over the ${limit}-byte limit`, raw: { body }, refused: true };
    }),
];

const INVALID_PARAM_VALUES = [
  'not-a-uuid',
  '12345678-1234-1234-1234-1234567890a',
  '12345678-1234-1234-1234-1234567890abc',
  'g2345678-1234-1234-1234-1234567890ab',
  '{12345678-1234-1234-1234-1234567890ab}',
  '..',
  '.',
  '%',
  'a b',
  'A'.repeat(300),
  'ü',
  '😀',
  '-',
  '--',
  'UPPER-case',
  'a'.repeat(64),
  '0',
  '-1',
  'null',
  '*',
  '%2F',
  '\u0000',
  '\u202e',
  ':password-reset',
];

const paramMutators: Mutator[] = [
  (route, parts) =>
    fc
      .tuple(
        fc.constantFrom(...pathParamNames(route)),
        fc.oneof(
          fc.constantFrom(...INVALID_PARAM_VALUES, ...NASTY_STRINGS.filter(Boolean)),
          fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
        ),
      )
      .map(([k, v]) => ({
        mutation: `params.${k} = ${JSON.stringify(v).slice(0, 60)}`,
        parts: { ...parts, params: { ...parts.params, [k]: v } },
      })),
];

const INVALID_QUERY_VALUES = [
  '0',
  '-1',
  '1.5',
  '1e3',
  'abc',
  '',
  ' 1',
  '1 ',
  '99999999',
  '100001',
  '101',
  '0x10',
  'NaN',
  'Infinity',
  'true',
  '[]',
  '1,2',
  '%00',
];

const queryMutators: Mutator[] = [
  (route, parts) => {
    const known = Object.keys(schemaFields(route, 'query'));
    return fc
      .tuple(
        known.length ? fc.constantFrom(...known) : fc.constant('page'),
        fc.oneof(
          fc.constantFrom(...INVALID_QUERY_VALUES, ...NASTY_STRINGS),
          fc.string({ unit: 'binary', maxLength: 30 }),
          fc.constantFrom('x'.repeat(101), 'é'.repeat(3000)),
        ),
      )
      .map(([k, v]) => ({
        mutation: `query.${k} = ${JSON.stringify(v).slice(0, 60)}`,
        parts: { ...parts, query: { ...parts.query, [k]: v } },
      }));
  },
  (_route, parts) =>
    fc
      .dictionary(
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 10 }),
          fc.constantFrom('__proto__', 'constructor', 'tenantId[]', 'page[]'),
        ),
        fc.string({ maxLength: 20 }),
        { minKeys: 1, maxKeys: 4 },
      )
      .map((extra) => ({
        mutation: `extra query ${Object.keys(extra).join(',')}`,
        parts: { ...parts, query: { ...parts.query, ...extra } },
      })),
];

/** Malformed, mistyped and oversized bodies: also sent to routes that take no JSON body. */
const junkBodyMutators = [bodyMutators[10]!, bodyMutators[11]!, bodyMutators[12]!];

const JSON_TYPE = /^application\/json(\s*;.*)?$/i;

/** What the JSON body pipeline would make of a raw body: accepted only as a JSON object the schema takes. */
function rawBodyAccepted(route: RouteDef, parts: Parts, raw: { body: string; contentType?: string }): boolean {
  if (raw.contentType !== undefined && !JSON_TYPE.test(raw.contentType)) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.body);
  } catch {
    return false;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
  return isValidRequest(route, { ...parts, body: parsed });
}

/**
 * Real values to put into valid requests before they are mutated: the caller's own tenant where
 * a `tenantId` is taken (else every valid request is a plain 403), and, in half the runs, ids of
 * records that exist (else every valid request is a plain 404), so handlers meet the odd input.
 */
export interface Pins {
  tenantId?: string;
  records?: Record<string, string>;
}

function pin(route: RouteDef, parts: Parts, pins: Pins, useRecords: boolean): Parts {
  const out = { params: { ...parts.params }, query: { ...parts.query }, body: parts.body };
  if (pins.tenantId) {
    if ('tenantId' in out.query) out.query.tenantId = pins.tenantId;
    const body = bodyObject(out);
    if ('tenantId' in body) out.body = { ...body, tenantId: pins.tenantId };
  }
  if (useRecords)
    for (const name of pathParamNames(route)) if (pins.records?.[name]) out.params[name] = pins.records[name];
  return out;
}

/** Mutated requests for a route, built from its own schemas. */
export function mutatedRequestArb(route: RouteDef, pins: Pins = {}): fc.Arbitrary<FuzzRequest> {
  const mutators: { weight: number; arb: Mutator }[] = [];
  if (takesJsonBody(route)) for (const m of bodyMutators) mutators.push({ weight: 3, arb: m });
  else if (route.method !== 'GET') {
    // A route without a JSON body still gets junk and oversized bodies.
    for (const m of junkBodyMutators) mutators.push({ weight: 2, arb: m });
  } else mutators.push({ weight: 1, arb: junkBodyMutators[2]! });
  if (pathParamNames(route).length) for (const m of paramMutators) mutators.push({ weight: 6, arb: m });
  for (const m of queryMutators) mutators.push({ weight: route.query ? 4 : 1, arb: m });

  return fc
    .tuple(validRequestArb(route), fc.boolean())
    .map(([parts, useRecords]) => pin(route, parts, pins, useRecords))
    .chain((parts) =>
      fc
        .oneof(...mutators.map(({ weight, arb }) => ({ weight, arbitrary: arb(route, parts) })))
        .map((m): FuzzRequest => {
          const finalParts = m.parts ?? parts;
          const path = buildPath(route, finalParts.params);
          const found = match(route.method, path);
          const sameRoute = found.kind === 'route' && found.route.id === route.id;
          const rawBody = m.raw
            ? m.raw.body
            : takesJsonBody(route) || finalParts.body !== undefined
              ? JSON.stringify(finalParts.body ?? {})
              : undefined;
          let valid: boolean | null;
          if (!sameRoute) valid = null;
          else if (m.refused) valid = false;
          else if (m.raw) valid = takesJsonBody(route) ? rawBodyAccepted(route, finalParts, m.raw) : null;
          else valid = isValidRequest(route, finalParts);
          return {
            mutation: m.mutation,
            method: route.method,
            path,
            rawQuery: queryString(finalParts.query),
            ...(rawBody !== undefined ? { rawBody } : {}),
            ...(m.raw?.contentType !== undefined ? { contentType: m.raw.contentType } : {}),
            valid,
          };
        }),
    );
}
