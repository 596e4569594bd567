import type { ValidateFunction } from 'ajv';

/**
 * JSON Schema checks with Ajv: a request's schema is compiled before the call (a schema that does not
 * compile is the caller's error, found before any token is spent), and a strict answer is checked
 * against it after. Ajv and its formats load on first use (lazy packages beside the bundle,
 * lib/bundling.ts): a function that never asks for a shape never parses them.
 */
type Checker = { compile(schema: Record<string, unknown>): ValidateFunction };
type AjvClass = new (options: Record<string, unknown>) => Checker;
type AddFormats = (ajv: Checker, names: string[]) => void;
let loading: Promise<Checker> | undefined;

/** A CommonJS package's export through `import()`: Node gives `module.exports`, a bundle may wrap it once more. */
const exported = <T>(m: { default?: unknown }): T => {
  const d = m.default as { default?: unknown } | undefined;
  return (typeof d === 'function' ? d : (d?.default ?? m)) as T;
};

function checker(): Promise<Checker> {
  loading ??= Promise.all([import('ajv'), import('ajv-formats')]).then(([ajv, formats]) => {
    const Ajv = exported<AjvClass>(ajv);
    const addFormats = exported<AddFormats>(formats);
    // Not strict: clients send keywords Ajv's strict mode rejects (OpenAI's own, `title` on a ref).
    const instance = new Ajv({ strict: false, allErrors: false });
    // The list form adds the formats only, not the formatMaximum keywords (their code generator would
    // be a second copy of Ajv's when each package is built beside the bundle on its own).
    addFormats(instance, [...FORMAT_NAMES]);
    return instance;
  });
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

const FORMAT_NAMES = [
  'date',
  'time',
  'date-time',
  'duration',
  'uri',
  'uri-reference',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'regex',
  'uuid',
] as const;

/** Compiled schemas by their text: an agent asks the same shape on every turn. */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 100;

/**
 * Ajv's default draft (07) knows `$defs` but not the 2020-12 meta-schema that zod's JSON Schema
 * names in `$schema`; the keywords clients send mean the same in both, so the declaration is dropped.
 */
const withoutDraft = ({ $schema: _draft, ...schema }: Record<string, unknown>) => schema;

/** The schema's validator, or why it does not compile. */
export async function compileSchema(
  schema: Record<string, unknown>,
): Promise<{ validate: ValidateFunction } | { error: string }> {
  const text = JSON.stringify(schema);
  const known = compiled.get(text);
  if (known) return { validate: known };
  try {
    const validate = (await checker()).compile(withoutDraft(schema));
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(text, validate);
    return { validate };
  } catch (err) {
    return { error: `not a valid JSON Schema (${(err as Error).message})` };
  }
}

/** Where an answer departs from its schema, in a line: the first issue Ajv found. */
export function firstIssue(validate: ValidateFunction): string {
  const e = validate.errors?.[0];
  return e ? `${e.instancePath || '/'} ${e.message ?? 'does not match'}` : 'does not match';
}
