import * as z from 'zod/mini';
import { GATEWAY_LIMITS as L } from './limits.ts';

/** What both wires (chat's `response_format`, the Responses API's `text.format`) hold of a JSON Schema format. */
export const formatName = () => z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'Expected 1-64 of A-Z a-z 0-9 _ -'));

/** The schema itself: an object, bounded as JSON text (it is compiled before the call). */
export const formatSchema = () =>
  z
    .record(z.string(), z.unknown())
    .check(
      z.refine(
        (schema) => JSON.stringify(schema).length <= L.schemaChars,
        `Expected a schema of at most ${L.schemaChars} characters as JSON`,
      ),
    );
