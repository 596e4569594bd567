import fc from 'fast-check';
import { safeParse, toJSONSchema, type z } from 'zod/mini';
import type { AnySchema } from '#shared/routes/types.ts';

/** JSON Schema (draft 2020-12, as zod emits it) reduced to what the generators read. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  default?: unknown;
}

const cache = new WeakMap<object, JsonSchema>();

/**
 * A string field piped into an enum (`z.pipe(z.string().check(z.toUpperCase()), z.enum([...]))`)
 * shows only `type: string` on the input side; the output side names the values it takes.
 */
function withOutputEnums(input: JsonSchema, output: JsonSchema): JsonSchema {
  if (output.enum && input.type === 'string' && !input.enum && !input.pattern) return { ...input, enum: output.enum };
  if (!input.properties || !output.properties) return input;
  const properties = Object.fromEntries(
    Object.entries(input.properties).map(([k, v]) => [
      k,
      output.properties![k] ? withOutputEnums(v, output.properties![k]!) : v,
    ]),
  );
  return { ...input, properties };
}

/** The input-side JSON Schema of a route schema; transforms and refinements become `{}` (anything). */
export function jsonSchemaOf(schema: AnySchema): JsonSchema {
  let js = cache.get(schema);
  if (!js) {
    const as = (io: 'input' | 'output') =>
      toJSONSchema(schema as z.ZodMiniType, { io, unrepresentable: 'any' }) as JsonSchema;
    js = withOutputEnums(as('input'), as('output'));
    cache.set(schema, js);
  }
  return js;
}

/** A schema that says nothing (a transform, a refinement): values for it come from hints. */
export const isOpaque = (js: JsonSchema) =>
  !js.type && !js.anyOf && !js.oneOf && !js.allOf && !js.enum && js.const === undefined && !js.properties;

export const accepts = (schema: AnySchema | undefined, value: unknown) =>
  !schema || safeParse(schema as z.ZodMiniType, value).success;

const anchored = (pattern: string) =>
  new RegExp(`${pattern.startsWith('^') ? '' : '^'}${pattern}${pattern.endsWith('$') ? '' : '$'}`);

const EMAIL = fc
  .tuple(
    fc.stringMatching(/^[a-z][a-z0-9._+-]{0,10}[a-z0-9]$/),
    fc.constantFrom('example.com', 'test.org', 'mail.example.net'),
  )
  .map(([local, domain]) => `${local.replace(/\.{2,}/g, '.')}@${domain}`);
/** Passes every password policy that asks for a capital, a small letter and a digit. */
const PASSWORD = fc.stringMatching(/^[A-Za-z0-9!@#%^&*_-]{6,20}$/).map((s) => `Aa1${s}`);
const DATE = fc.date({
  min: new Date('2000-01-01T00:00:00Z'),
  max: new Date('2099-12-31T00:00:00Z'),
  noInvalidDate: true,
});
/** Printable text that survives trimming; occasionally real unicode. */
const TEXT_UNIT = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -.'.split('')),
  },
  { weight: 1, arbitrary: fc.constantFrom('é', 'ß', 'Ω', '中', '😀', 'ñ', 'ø') },
);

/**
 * Built once per pattern: fc.stringMatching tokenizes its default values when it is made (about
 * 45 ms for a UUID's pattern), and every route's arbitraries are made afresh for each of its runs'
 * properties. An arbitrary is immutable: the values it draws depend on the seed alone.
 */
const matching = new Map<string, fc.Arbitrary<string>>();

function stringArb(js: JsonSchema): fc.Arbitrary<string> {
  const min = js.minLength ?? 0;
  const max = Math.min(js.maxLength ?? 40, Math.max(min, 40));
  if (js.format === 'email') return EMAIL;
  if (js.format === 'date') return DATE.map((d) => d.toISOString().slice(0, 10));
  if (js.format === 'date-time') return DATE.map((d) => d.toISOString());
  if (js.allOf?.some((s) => s.pattern)) return PASSWORD;
  if (js.pattern) {
    const key = `${js.pattern}|${min}|${js.maxLength}`;
    let arb = matching.get(key);
    if (!arb) {
      arb = fc
        .stringMatching(anchored(js.pattern), { size: 'xsmall' })
        .filter((s) => s.length >= min && s.length <= (js.maxLength ?? Infinity));
      matching.set(key, arb);
    }
    return arb;
  }
  return fc
    .array(TEXT_UNIT, { minLength: Math.max(min, 1), maxLength: Math.max(max, 1) })
    .map((chars) => chars.join(''))
    .map((s) => (s.trim() ? s : `x${s}`).slice(0, js.maxLength ?? Infinity))
    .filter((s) => s.trim().length >= min);
}

/** Values the schema accepts (best effort: the caller confirms with zod, so near-misses are fine). */
export function validArb(js: JsonSchema): fc.Arbitrary<unknown> {
  if (js.const !== undefined) return fc.constant(js.const);
  if (js.enum) return fc.constantFrom(...js.enum);
  const union = js.anyOf ?? js.oneOf;
  if (union) return fc.oneof(...union.map(validArb));
  const type = Array.isArray(js.type) ? js.type[0] : js.type;
  switch (type) {
    case 'string':
      return stringArb(js);
    case 'integer':
    case 'number': {
      const min = js.minimum ?? (js.exclusiveMinimum !== undefined ? js.exclusiveMinimum + 1 : -1000);
      const max = js.maximum ?? (js.exclusiveMaximum !== undefined ? js.exclusiveMaximum - 1 : 1000);
      return type === 'integer'
        ? fc.integer({ min, max })
        : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(js.items ? validArb(js.items) : fc.string(), {
        minLength: js.minItems ?? 0,
        maxLength: Math.min(js.maxItems ?? 3, Math.max(js.minItems ?? 0, 3)),
      });
    case 'object': {
      const props = js.properties ?? {};
      const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, validArb(v)]));
      return fc.record(model, { requiredKeys: (js.required ?? []).filter((k) => k in props) });
    }
    default:
      return fc.constant({});
  }
}

/** Names of the fields an object schema declares, with their sub-schemas. */
export const fieldsOf = (js: JsonSchema | undefined): Record<string, JsonSchema> => js?.properties ?? {};

export const typeOfField = (js: JsonSchema): string[] => {
  if (js.anyOf ?? js.oneOf) return (js.anyOf ?? js.oneOf)!.flatMap(typeOfField);
  if (js.enum) return [...new Set(js.enum.map((v) => (v === null ? 'null' : typeof v)))];
  return js.type ? (Array.isArray(js.type) ? js.type : [js.type]) : [];
};
