import * as z from 'zod/mini';
import { contentJsonIssues, deeperThan } from '#areas/content/blocks.ts';
import { HOST, JSON_MAX_DEPTH, LOCALE, SITE_URL, SLUG, SLUG_MAX, URL_MAX } from '#areas/content/vocabulary.ts';
import { once } from '#shared/routes/types.ts';
import { uuid } from '#shared/routes/schemas.ts';

/** Field schemas both content route files (content-admin.ts, content-public.ts) use. */

export const domain = () =>
  z
    .string()
    .check(
      z.maxLength(253),
      z.regex(HOST, 'A lowercase host name such as www.example.com'),
      z.meta({ examples: ['www.example.com'] }),
    );

/** A BCP 47 language tag (en, en-US, pt-BR, zh-Hant-TW); the pattern is the whole rule. */
export const locale = () =>
  z.string().check(z.maxLength(35), z.regex(LOCALE, 'A BCP 47 language tag such as en or en-US'));

export const slug = () =>
  z
    .string()
    .check(z.minLength(1), z.maxLength(SLUG_MAX), z.regex(SLUG, 'Lowercase letters, digits and single hyphens'));

/** An http(s) URL or a path of the site (never `//host` or `/\host`), or null. */
export const siteUrl = () =>
  z.optional(
    z.nullable(
      z
        .string()
        .check(z.maxLength(URL_MAX), z.regex(SITE_URL, 'An http(s) URL or a path of the site starting with one /')),
    ),
  );

export const siteParams = once(() => z.object({ siteId: uuid() }));

const parsed = (v: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(v) };
  } catch {
    return { ok: false };
  }
};

/**
 * A JSON document sent as a string and stored as sent, after proving it parses and keeps the
 * content format (areas/content/blocks.ts): `blocks` for contentBlocks, `settings` for page settings.
 */
export const contentJson = (max: number, kind: 'blocks' | 'settings', description: string) =>
  z.string().check(
    z.maxLength(max),
    kind === 'blocks'
      ? z.regex(/^\s*\[[\s\S]*\]\s*$/, 'A JSON array')
      : z.regex(/^\s*[[{][\s\S]*[\]}]\s*$/, 'A JSON object or array'),
    z.superRefine((v, ctx) => {
      const json = parsed(v);
      if (!json.ok) {
        ctx.addIssue({ code: 'custom', message: 'Not valid JSON', input: v });
        return;
      }
      for (const issue of contentJsonIssues(json.value, kind))
        ctx.addIssue({ code: 'custom', message: issue.message, input: v, path: issue.path });
    }),
    z.meta({ description }),
  );

/** An object, or a JSON string holding one, of at most `max` characters and JSON_MAX_DEPTH levels. */
export const objectOrJson = (max: number) =>
  z.pipe(
    z.union([z.record(z.string(), z.unknown()), z.string().check(z.maxLength(max))]),
    z.transform((v, ctx) => {
      const json = typeof v === 'string' ? parsed(v) : { ok: true as const, value: v };
      const value = json.ok ? json.value : undefined;
      if (!value || typeof value !== 'object' || Array.isArray(value)) {
        ctx.issues.push({ code: 'custom', input: v, message: 'Expected a JSON object' });
        return z.NEVER;
      }
      if (deeperThan(value, JSON_MAX_DEPTH)) {
        ctx.issues.push({ code: 'custom', input: v, message: `At most ${JSON_MAX_DEPTH} levels of nesting` });
        return z.NEVER;
      }
      if (JSON.stringify(value).length > max) {
        ctx.issues.push({ code: 'custom', input: v, message: `At most ${max} characters of JSON` });
        return z.NEVER;
      }
      return value as Record<string, unknown>;
    }),
  );
