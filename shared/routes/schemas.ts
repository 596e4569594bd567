import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { once } from './types.ts';

// zod/mini ships no messages; English ones make VALIDATION_ERROR details readable. They are built on
// the first refused input, not at import: building them took about 1 ms of every cold start.
let english: z.core.$ZodErrorMap | undefined;
z.config({
  localeError: (issue) => {
    english ??= en().localeError;
    return english(issue);
  },
});

/**
 * Building blocks every route schema uses, so limits stay the same across the API. A UUID is
 * accepted in either case and handed to handlers lowercased (ids are stored lowercase).
 */
export const uuid = () =>
  z
    .string()
    .check(
      z.regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'Invalid UUID'),
      z.toLowerCase(),
    );
export const text = (max: number, min = 1) => z.string().check(z.trim(), z.minLength(min), z.maxLength(max));
/**
 * A person's or organisation's name. It reaches e-mails sent to any address (registration,
 * onboarding, invitations), so it may not carry a link or control characters: no scheme, no
 * `www.`, nothing shaped like a host name (`word.tld`).
 */
const LINK = /:\/\/|www\.|[\p{L}\p{N}-]+\.[\p{L}]{2,}(?:[/:?#]|\b)/iu;
// Line and paragraph separators and bidirectional controls are not in \p{Cc} but break or reorder text as controls do.
const CONTROL = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
export const nameText = (max: number) =>
  text(max).check(
    z.refine((v) => !CONTROL.test(v), 'Control characters are not allowed'),
    z.refine((v) => !LINK.test(v), 'Links and web addresses are not allowed in names'),
  );
export const optionalText = (max: number) => z.optional(z.nullable(z.string().check(z.trim(), z.maxLength(max))));
/**
 * An e-mail address: zod's local part of at most 64 characters (RFC 5321; the whole address at most
 * 254), and a domain of dot-separated labels that each start and end with a letter or digit
 * (RFC 1035), so `x@example-.test` is refused, as the document's `format: email` and `pattern` say.
 */
const EMAIL_LOCAL_PART = String.raw`(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]`;
const DOMAIN_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
export const EMAIL_PATTERN = new RegExp(`^(?=[^@]{1,64}@)${EMAIL_LOCAL_PART}@(?:${DOMAIN_LABEL}\\.)+[A-Za-z]{2,}$`);
export const email = () =>
  z
    .string()
    .check(
      z.trim(),
      z.maxLength(254),
      z.email({ pattern: EMAIL_PATTERN, error: 'Invalid e-mail address' }),
      z.toLowerCase(),
    );
export const optionalEmail = () => z.optional(z.nullable(email()));
/** A DNS host name (labels as above, an alphabetic top-level label), no port, no IP literal. */
export const HOSTNAME_PATTERN = new RegExp(`^(?:${DOMAIN_LABEL}\\.)+[A-Za-z]{2,63}$`);
/**
 * An e-mail address or a bare domain (HOSTNAME_PATTERN), for allow-lists. Without the local part's
 * length bound (a lookahead the fuzzers' generators cannot build from): an entry over it only
 * never matches, since every address sent to is checked with EMAIL_PATTERN.
 */
export const RECIPIENT_PATTERN = new RegExp(`^(?:${EMAIL_LOCAL_PART}@)?(?:${DOMAIN_LABEL}\\.)+[A-Za-z]{2,63}$`);
/** A chat platform's recipient: a Slack/Discord/Teams id, a Telegram chat id, a WhatsApp phone number. */
export const CHANNEL_RECIPIENT_PATTERN = /^[A-Za-z0-9+_.:@-]{1,100}$/;
export const isoDateTime = () => z.iso.datetime({ offset: true });
const DAY_PATTERN = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
/** A day that exists (no 2026-02-30, which Date.parse would read as 2026-03-02). */
export const isCalendarDay = (v: string) =>
  DAY_PATTERN.test(v) &&
  !Number.isNaN(Date.parse(`${v}T00:00:00.000Z`)) &&
  new Date(`${v}T00:00:00.000Z`).toISOString().startsWith(v);
/** A calendar day, YYYY-MM-DD (UTC): the pattern, and a day that exists. */
export const utcDay = () =>
  z.string().check(
    z.regex(DAY_PATTERN, 'Expected a date YYYY-MM-DD'),
    z.refine(isCalendarDay, {
      message: 'Not a calendar date',
      // A value that is not YYYY-MM-DD at all has its one issue already (not a second one saying so again).
      when: (payload) => !payload.issues.length,
    }),
  );

const intFromQuery = (min: number, max: number, fallback: number) =>
  z._default(
    z.pipe(
      z.string().check(z.regex(/^\d{1,6}$/, 'Expected a whole number')),
      z.pipe(
        z.transform((v: string) => Number(v)),
        z.number().check(z.int(), z.minimum(min), z.maximum(max)),
      ),
    ),
    fallback,
  );

/** page >= 1 (default 1), pageSize 1..100 (default 20). */
export const paging = once(() => ({
  page: intFromQuery(1, 100_000, 1),
  pageSize: intFromQuery(1, 100, 20),
}));

export const searchTerm = () => z.optional(z.string().check(z.trim(), z.maxLength(100)));

/** Page-of-results envelope payload for a given item schema. */
export const pageOf = <T extends z.core.$ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    totalCount: z.number(),
    totalPages: z.number(),
    page: z.number(),
    pageSize: z.number(),
  });

export const nullResult = once(() => z.null());
