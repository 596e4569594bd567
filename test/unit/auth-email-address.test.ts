import { describe, expect, it } from 'vitest';
import { safeParse } from 'zod/mini';
import { apiDocument } from '#api/openapi/api-document.ts';
import { email } from '#shared/routes/schemas.ts';

/** Addresses whose domain has a label starting or ending with a hyphen (not a host name, RFC 1035). */
const HYPHEN_EDGED = ['x@example-.test', 'x@-example.test', 'x@sub.example-.test', 'x@sub-.example.test'];
/** RFC 5321: a local part of at most 64 characters. */
const LOCAL_PART_TOO_LONG = [`${'a'.repeat(65)}@example.com`, `${'a.'.repeat(40)}a@example.com`];
const VALID = [
  'x@ex-ample.test',
  'First.Last+tag@Sub.Example.COM',
  'a@b.co',
  'x@1-2.io',
  `${'a'.repeat(64)}@example.com`,
];

describe('e-mail addresses', () => {
  it('refuses a domain label that starts or ends with a hyphen, and keeps accepting inner hyphens', () => {
    for (const address of HYPHEN_EDGED) expect(safeParse(email(), address).success, address).toBe(false);
    for (const address of VALID) expect(safeParse(email(), address).success, address).toBe(true);
  });

  it('refuses a local part over 64 characters', () => {
    for (const address of LOCAL_PART_TOO_LONG) expect(safeParse(email(), address).success, address).toBe(false);
  });

  it('is documented as the server checks it: the pattern of the document refuses the same addresses', () => {
    const body = apiDocument().paths['/api/auth/register']?.post?.requestBody as {
      content: Record<string, { schema: { properties: Record<string, { pattern: string }> } }>;
    };
    const documented = body.content['application/json']!.schema.properties.email!;
    expect(documented).toMatchObject({ format: 'email' });
    const pattern = new RegExp(documented.pattern);
    for (const address of [...HYPHEN_EDGED, ...LOCAL_PART_TOO_LONG]) expect(pattern.test(address), address).toBe(false);
    for (const address of VALID) expect(pattern.test(address), address).toBe(true);
  });
});
