import { JSON_MAX_DEPTH, SITE_URL, URL_MAX } from './vocabulary.ts';

/**
 * The format of a page's `settings` and of a translation's `contentBlocks` (both JSON strings that
 * the public page route serves as stored, for the site's front end to render):
 * - `contentBlocks` is an array of blocks, each an object whose `type` is a short lowercase name
 *   (`text`, `image`, `hero`…); the other fields are the front end's business. `settings` is an
 *   object or an array.
 * - At most JSON_MAX_DEPTH levels of nesting.
 * - A string field named `html` is rich text: sanitized on write exactly like a post's `bodyHtml`.
 * - A string field named `url`, `href` or `src`, or ending in `Url`, is a link: an http(s) URL or a
 *   path of the site (`/…`, never `//host` or `/\host`).
 * - Every other string is text and may not hold markup: a `<` directly followed by a letter, `/`,
 *   `!` or `?` (what an HTML parser reads as a tag, comment or declaration) is refused with 400.
 */
const BLOCK_TYPE = /^[a-z][a-z0-9-]{0,49}$/;
const MARKUP = /<[A-Za-z/!?]/;
const HTML_FIELD = 'html';
const isLinkField = (name: string) => name === 'url' || name === 'href' || name === 'src' || /Url$/.test(name);

export interface JsonIssue {
  path: (string | number)[];
  message: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** True when the value nests deeper than `max` levels (an object or array is one level). Stops early. */
export function deeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (max <= 0) return true;
  return Object.values(value).some((v) => deeperThan(v, max - 1));
}

function stringIssues(name: string | number, value: string, path: (string | number)[], issues: JsonIssue[]) {
  if (name === HTML_FIELD) return;
  if (typeof name === 'string' && isLinkField(name)) {
    if (value.length > URL_MAX || !SITE_URL.test(value))
      issues.push({ path, message: 'A link is an http(s) URL or a path of the site starting with one /' });
    return;
  }
  if (MARKUP.test(value))
    issues.push({ path, message: 'Markup is not allowed in text; rich text goes in an "html" field (sanitized)' });
}

function walk(value: unknown, name: string | number, path: (string | number)[], issues: JsonIssue[]) {
  if (issues.length >= 20) return;
  if (typeof value === 'string') stringIssues(name, value, path, issues);
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) walk(v, i, [...path, i], issues);
  else if (isObject(value)) for (const [k, v] of Object.entries(value)) walk(v, k, [...path, k], issues);
}

/** What breaks the format (paths inside the parsed JSON); empty when the value is acceptable. */
export function contentJsonIssues(value: unknown, kind: 'blocks' | 'settings'): JsonIssue[] {
  if (deeperThan(value, JSON_MAX_DEPTH)) return [{ path: [], message: `At most ${JSON_MAX_DEPTH} levels of nesting` }];
  const issues: JsonIssue[] = [];
  if (kind === 'blocks') {
    if (!Array.isArray(value)) return [{ path: [], message: 'An array of blocks' }];
    value.forEach((block, i) => {
      if (!isObject(block) || typeof block.type !== 'string' || !BLOCK_TYPE.test(block.type))
        issues.push({ path: [i, 'type'], message: 'Each block is an object with a lowercase "type" name' });
    });
  } else if (typeof value !== 'object' || value === null) {
    return [{ path: [], message: 'A JSON object or array' }];
  }
  walk(value, '', [], issues);
  return issues;
}

/** The value with every `html` field passed through `sanitize` (the other strings were checked on input). */
export async function sanitizeContentJson(
  value: unknown,
  sanitize: (html: string) => Promise<string>,
): Promise<unknown> {
  if (Array.isArray(value)) return Promise.all(value.map((v) => sanitizeContentJson(v, sanitize)));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = k === HTML_FIELD && typeof v === 'string' ? await sanitize(v) : await sanitizeContentJson(v, sanitize);
  return out;
}
