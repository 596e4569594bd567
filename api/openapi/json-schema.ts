import * as z from 'zod/mini';
import type { AnySchema } from '#shared/routes/types.ts';

export type JsonSchema = Record<string, unknown>;

/** `input` for what a client sends (before transforms and defaults), `output` for what it receives. */
export type Io = 'input' | 'output';

const COMPONENTS = '#/components/schemas/';

/**
 * Turns zod schemas into JSON Schema 2020-12 (the dialect of OpenAPI 3.1) and keeps the shared
 * pieces in one `components.schemas` map: schemas registered with an `id`
 * (`.register(z.globalRegistry, { id })`) and recursive schemas become named components, because
 * a `$ref` inside an embedded schema resolves against the whole document, not against the schema.
 */
export class SchemaConverter {
  readonly components: Record<string, JsonSchema> = {};

  convert(schema: AnySchema, io: Io, name: string): JsonSchema {
    const out = z.toJSONSchema(schema as z.core.$ZodType, {
      io,
      unrepresentable: 'any',
      target: 'draft-2020-12',
    }) as JsonSchema;
    delete out.$schema;
    const defs = (out.$defs ?? {}) as Record<string, JsonSchema>;
    delete out.$defs;
    const renamed = new Map<string, string>();
    for (const [id, def] of Object.entries(defs)) renamed.set(id, this.add(id, io, def));
    const selfRef = containsRef(out, '#') || Object.values(defs).some((d) => containsRef(d, '#'));
    const rootName = selfRef ? this.reserve(`${name}_${io}`) : undefined;
    const rewrite = (ref: string) => {
      if (ref === '#') return COMPONENTS + rootName;
      if (ref.startsWith('#/$defs/')) return COMPONENTS + (renamed.get(decodePointer(ref.slice(8))) ?? ref.slice(8));
      return ref;
    };
    for (const id of renamed.values()) this.components[id] = rewriteRefs(this.components[id]!, rewrite) as JsonSchema;
    const root = rewriteRefs(out, rewrite) as JsonSchema;
    if (!rootName) return root;
    this.components[rootName] = root;
    return { $ref: COMPONENTS + rootName };
  }

  /** A component name for `id`; the same id with different content (input vs output) gets a suffix. */
  private add(id: string, io: Io, schema: JsonSchema): string {
    const base = sanitize(id);
    for (const candidate of [base, `${base}_${io}`]) {
      const existing = this.components[candidate];
      if (!existing) {
        this.components[candidate] = schema;
        return candidate;
      }
      if (JSON.stringify(existing) === JSON.stringify(schema)) return candidate;
    }
    const name = this.reserve(`${base}_${io}`);
    this.components[name] = schema;
    return name;
  }

  private reserve(name: string): string {
    const base = sanitize(name);
    let candidate = base;
    for (let i = 2; this.components[candidate]; i++) candidate = `${base}_${i}`;
    this.components[candidate] = {};
    return candidate;
  }
}

/** Component names may hold letters, digits, `.`, `-` and `_` only. */
const sanitize = (name: string) => name.replace(/[^A-Za-z0-9._-]/g, '_');
const decodePointer = (token: string) => decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');

function containsRef(node: unknown, ref: string): boolean {
  if (Array.isArray(node)) return node.some((n) => containsRef(n, ref));
  if (node && typeof node === 'object') {
    return Object.entries(node).some(([k, v]) => (k === '$ref' && v === ref) || containsRef(v, ref));
  }
  return false;
}

function rewriteRefs(node: unknown, rewrite: (ref: string) => string): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, rewrite));
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' ? rewrite(v) : rewriteRefs(v, rewrite),
      ]),
    );
  }
  return node;
}

const NON_STRING_TYPES = new Set(['integer', 'number', 'boolean']);

/**
 * Query and path values arrive as strings; routes parse them into numbers with a transform.
 * The input schema then says only "a string of digits", while the output schema says what the
 * value means (integer 1..100, default 20). OpenAPI serializes parameters as text anyway, so a
 * parameter whose input is a string and whose output is a number or boolean is documented with
 * the output schema; otherwise the input schema is kept.
 */
export function parameterSchema(input: JsonSchema | undefined, output: JsonSchema | undefined): JsonSchema {
  if (!input) return { type: 'string' };
  if (input.type === 'string' && output && NON_STRING_TYPES.has(output.type as string)) return output;
  return input;
}

/** The object schemas of `params`/`query`: each property with whether a client must send it. */
export function objectProperties(schema: JsonSchema): { name: string; schema: JsonSchema; required: boolean }[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, s]) => ({ name, schema: s, required: required.has(name) }));
}
