import { safeParse, type z } from 'zod/mini';
import type { AnySchema } from '#shared/routes/types.ts';

interface Def {
  type: string;
  shape?: Record<string, AnySchema>;
  catchall?: AnySchema;
  element?: AnySchema;
  innerType?: AnySchema;
  in?: AnySchema;
  options?: AnySchema[];
  valueType?: AnySchema;
  left?: AnySchema;
  right?: AnySchema;
  getter?: () => AnySchema;
}

const defOf = (schema: AnySchema) => (schema as unknown as { _zod: { def: Def } })._zod.def;
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);

/** The field schemas an object-like schema names (through wrappers, unions and intersections). */
function fieldsOf(schema: AnySchema, out: Map<string, AnySchema> = new Map()): Map<string, AnySchema> | null {
  const def = defOf(schema);
  if (def.type === 'object') {
    for (const [k, v] of Object.entries(def.shape ?? {})) if (!out.has(k)) out.set(k, v);
    return def.catchall && defOf(def.catchall).type !== 'never' ? null : out;
  }
  if (WRAPPERS.has(def.type)) return fieldsOf(def.innerType!, out);
  if (def.type === 'pipe') return fieldsOf(def.in!, out);
  if (def.type === 'lazy') return fieldsOf(def.getter!(), out);
  if (def.type === 'union') {
    for (const option of def.options ?? []) if (fieldsOf(option, out) === null) return null;
    return out;
  }
  if (def.type === 'intersection') return fieldsOf(def.left!, out) && fieldsOf(def.right!, out);
  return null;
}

/**
 * The value with only what the response schema names: every object keeps the fields its schema
 * declares, recursively, so storage attributes (`pk`, `gsi1sk`, `searchText`) and fields added by
 * accident never reach a client. Values are not coerced: types are the handler's (and the strict
 * check's, under test) business.
 */
export function shapeResult(schema: AnySchema, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return shapeResult(def.innerType!, value);
  switch (def.type) {
    case 'array':
      return Array.isArray(value) ? value.map((v) => shapeResult(def.element!, v)) : value;
    case 'pipe':
      return shapeResult(def.in!, value);
    case 'lazy':
      return shapeResult(def.getter!(), value);
    case 'record':
      return isPlainObject(value)
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shapeResult(def.valueType!, v)]))
        : value;
    case 'object':
    case 'union':
    case 'intersection': {
      if (!isPlainObject(value)) return value;
      const fields = fieldsOf(schema);
      if (!fields) return value;
      const out: Record<string, unknown> = {};
      for (const [k, fieldSchema] of fields) if (k in value) out[k] = shapeResult(fieldSchema, value[k]);
      return out;
    }
    default:
      return value;
  }
}

/** The test run's mode (vitest.config.ts): answers are checked against what their route documents. */
export const strictResponses = () => process.env.STRICT_RESPONSES === '1';

/** Under test (STRICT_RESPONSES=1) an answer that breaks its documented schema fails the request. */
export function assertResultMatches(routeId: string, schema: AnySchema, value: unknown): void {
  const parsed = safeParse(schema as z.ZodMiniType, value);
  if (parsed.success) return;
  const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new Error(`Answer of ${routeId} does not match its response schema: ${issues.join('; ')}`);
}
