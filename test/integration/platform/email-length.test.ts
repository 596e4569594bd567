import { beforeAll, describe, expect, it } from 'vitest';
import { apiDocument } from '#api/openapi/api-document.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/** RFC 5321: a local part of at most 64 octets, a whole address of at most 254. */
const LONG_LOCAL = `${'a'.repeat(65)}@example.com`;
const LONGEST_LOCAL = `${'a'.repeat(64)}@example.com`;

type Schema = { properties?: Record<string, { format?: string; anyOf?: { format?: string }[] }> };

/** Every deployed operation whose JSON body has e-mail fields, with their names: generated from the document. */
const EMAIL_BODIES = Object.entries(apiDocument().paths).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, op]) => {
    const schema = (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content?.[
      'application/json'
    ]?.schema;
    const fields = Object.entries(schema?.properties ?? {})
      .filter(([, s]) => s.format === 'email' || s.anyOf?.some((a) => a.format === 'email'))
      .map(([name]) => name);
    return fields.length ? [{ method: method.toUpperCase(), path, fields }] : [];
  }),
);

let admin: string;
let ip = 0;
beforeAll(async () => {
  admin = await tokenFor({ role: 'SystemAdmin' });
});

const send = (route: (typeof EMAIL_BODIES)[number], address: string) =>
  invoke(route.method, route.path.replace(/\{[^}]+\}/g, 'acme'), {
    token: admin,
    body: Object.fromEntries(route.fields.map((f) => [f, address])),
    ip: `198.51.100.${++ip % 250}`,
  });

const emailIssues = (json: { error?: { details?: { path: string }[] } }, fields: string[]) =>
  (json.error?.details ?? []).filter((d) => fields.some((f) => d.path === `body.${f}`)).map((d) => d.path);

describe('an e-mail address whose local part is over 64 characters', () => {
  it('is a field of the routes the issue names (generated from the document)', () => {
    expect(EMAIL_BODIES.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        'POST /api/auth/register',
        'POST /api/auth/login',
        'POST /api/auth/forgot-password',
        'POST /api/auth/resend-verification',
        'PUT /api/tenants/{slug}',
      ]),
    );
  });

  it.each(EMAIL_BODIES.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s refuses it: 400 VALIDATION_ERROR naming the field',
    async (_, route) => {
      const res = await send(route, LONG_LOCAL);
      expect(res).toAnswer(400, 'VALIDATION_ERROR');
      expect(emailIssues(res.json, route.fields)).toEqual(route.fields.map((f) => `body.${f}`));
      // 64 characters is still an address: whatever else the body lacks, the field passes.
      const longest = await send(route, LONGEST_LOCAL);
      expect(emailIssues(longest.json ?? {}, route.fields)).toEqual([]);
    },
  );
});
