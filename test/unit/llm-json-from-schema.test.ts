import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { jsonFromSchema } from '#areas/llm-gateway/providers/json-from-schema.ts';
import { FormatUnsupported } from '#areas/llm-gateway/providers/port.ts';

/**
 * The local models' schema-following generator, checked by an independent validator (Ajv, draft
 * 2020-12 with formats) over schemas of the kinds clients send: OpenAI's strict shapes, zod's JSON
 * Schema, the AI SDK's wrappers, recursive and bounded ones.
 */
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const TEXT = 'Ada Lovelace wrote the first program';

const SCHEMAS: Record<string, Record<string, unknown>> = {
  'strict object with every type': {
    type: 'object',
    properties: {
      name: { type: 'string' },
      age: { type: 'integer' },
      score: { type: 'number' },
      active: { type: 'boolean' },
      nothing: { type: 'null' },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['name', 'age', 'score', 'active', 'nothing', 'tags'],
    additionalProperties: false,
  },
  'enums, consts and nullable unions': {
    type: 'object',
    properties: {
      colour: { type: 'string', enum: ['red', 'green'] },
      kind: { const: 'fixed' },
      maybe: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      either: { type: ['integer', 'null'] },
      priority: { enum: [3, 1, 2] },
    },
    required: ['colour', 'kind', 'maybe', 'either', 'priority'],
    additionalProperties: false,
  },
  'nested objects and arrays of objects': {
    type: 'object',
    properties: {
      author: {
        type: 'object',
        properties: { first: { type: 'string' }, last: { type: 'string' } },
        required: ['first', 'last'],
        additionalProperties: false,
      },
      steps: {
        type: 'array',
        items: {
          type: 'object',
          properties: { explanation: { type: 'string' }, output: { type: 'string' } },
          required: ['explanation', 'output'],
          additionalProperties: false,
        },
      },
      final_answer: { type: 'string' },
    },
    required: ['author', 'steps', 'final_answer'],
    additionalProperties: false,
  },
  'bounds on numbers, strings and arrays': {
    type: 'object',
    properties: {
      percent: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
      year: { type: 'integer', minimum: 1900, maximum: 2100 },
      negative: { type: 'integer', maximum: -5 },
      even: { type: 'integer', minimum: 3, multipleOf: 2 },
      code: { type: 'string', minLength: 3, maxLength: 5 },
      long: { type: 'string', minLength: 80 },
      pair: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2 },
      none: { type: 'array', items: { type: 'string' }, maxItems: 0 },
    },
    required: ['percent', 'year', 'negative', 'even', 'code', 'long', 'pair', 'none'],
  },
  'formats and a pattern the text matches': {
    type: 'object',
    properties: {
      at: { type: 'string', format: 'date-time' },
      day: { type: 'string', format: 'date' },
      mail: { type: 'string', format: 'email' },
      id: { type: 'string', format: 'uuid' },
      site: { type: 'string', format: 'uri' },
      word: { type: 'string', pattern: '^[A-Z][a-z]+$' },
    },
    required: ['at', 'day', 'mail', 'id', 'site', 'word'],
  },
  'definitions and a recursive tree': {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { root: { $ref: '#/$defs/node' } },
    required: ['root'],
    additionalProperties: false,
    $defs: {
      node: {
        type: 'object',
        properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
        required: ['label', 'children'],
        additionalProperties: false,
      },
    },
  },
  'the AI SDK array wrapper with unique items': {
    type: 'object',
    properties: {
      elements: { type: 'array', items: { type: 'string' }, minItems: 3, uniqueItems: true },
      flags: { type: 'array', items: { type: 'boolean' }, minItems: 2, uniqueItems: true },
    },
    required: ['elements', 'flags'],
    additionalProperties: false,
  },
  'allOf, oneOf and tuples': {
    allOf: [
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      { type: 'object', properties: { b: { oneOf: [{ type: 'integer', minimum: 10 }, { type: 'string' }] } } },
    ],
    properties: { point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }], items: false } },
  },
  'minProperties on an open object': {
    type: 'object',
    properties: { one: { type: 'string' } },
    minProperties: 3,
    additionalProperties: { type: 'integer' },
  },
  'a scalar root': { type: 'string', enum: ['positive', 'negative', 'neutral'] },
  'an array root': { type: 'array', items: { type: 'number', minimum: 2.5 }, minItems: 1 },
};

describe('jsonFromSchema: values valid against the schema', () => {
  for (const [name, schema] of Object.entries(SCHEMAS))
    it(name, () => {
      const value = jsonFromSchema(schema, TEXT);
      const validate = ajv.compile(schema);
      expect(validate(value), JSON.stringify({ value, errors: validate.errors })).toBe(true);
      // Deterministic: the same schema and text give the same value.
      expect(jsonFromSchema(schema, TEXT)).toEqual(value);
    });

  it('fills strings from the text, takes first enum values, minimal arrays and the smallest integers', () => {
    expect(jsonFromSchema(SCHEMAS['strict object with every type'], TEXT)).toEqual({
      name: TEXT,
      age: 0,
      score: 0,
      active: false,
      nothing: null,
      tags: [TEXT],
    });
    expect(jsonFromSchema(SCHEMAS['enums, consts and nullable unions'], TEXT)).toEqual({
      colour: 'red',
      kind: 'fixed',
      maybe: TEXT,
      either: 0,
      priority: 3,
    });
  });

  it('takes values from a hint where they fit their part of the schema, and makes the rest', () => {
    const schema = SCHEMAS['bounds on numbers, strings and arrays']!;
    const value = jsonFromSchema(schema, TEXT, { year: 1999, code: 'toolongcode', percent: 'high', extra: true });
    expect(value).toMatchObject({ year: 1999, code: 'toolo', percent: 1 });
    expect(value).not.toHaveProperty('extra');
    expect(ajv.compile(schema)(value)).toBe(true);
  });

  it('a recursive schema ends: deep down only what is required, and arrays at their minimum', () => {
    const value = jsonFromSchema(SCHEMAS['definitions and a recursive tree'], 'x') as { root: unknown };
    expect(JSON.stringify(value).length).toBeLessThan(200);
  });

  it('refuses by name what it cannot follow', () => {
    for (const [schema, why] of [
      [{ type: 'string', pattern: '^[0-9]{3}-[0-9]{4}$' }, /pattern/],
      [{ type: 'object', properties: { a: { not: { type: 'string' } } } }, /a: not is not supported/],
      [{ $ref: 'https://example.com/schema.json' }, /not a reference inside the schema/],
      [{ type: 'integer', minimum: 1, maximum: 2, multipleOf: 5 }, /no number fits/],
      [{ type: 'object', required: ['x'], additionalProperties: false }, /required property x/],
    ] as const) {
      const err = (() => {
        try {
          jsonFromSchema(schema, TEXT);
        } catch (e) {
          return e;
        }
      })();
      expect(err, JSON.stringify(schema)).toBeInstanceOf(FormatUnsupported);
      expect((err as Error).message).toMatch(why);
    }
  });
});
