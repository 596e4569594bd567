import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { text, uuid } from '#shared/routes/schemas.ts';

describe('validation messages', () => {
  // The English locale is built on the first refused input, not at import (shared/routes/schemas.ts).
  it("are zod's English ones, and the schema's own where it names one", () => {
    const schema = z.object({ name: text(5), id: uuid(), count: z.int(), kind: z.enum(['a', 'b']) });
    const issues = z.safeParse(schema, { name: 'too long', id: 'nope', count: 1.5, kind: 'c' }).error?.issues ?? [];
    expect(issues.map((i) => i.message)).toEqual([
      'Too big: expected string to have <=5 characters',
      'Invalid UUID',
      'Invalid input: expected int, received number',
      'Invalid option: expected one of "a"|"b"',
    ]);
  });
});
