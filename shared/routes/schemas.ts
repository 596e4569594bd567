import * as z from 'zod/mini';
import { en } from 'zod/locales';

// zod/mini ships no messages; English ones make VALIDATION_ERROR details readable.
z.config(en());

/** Building blocks every route schema uses, so limits stay the same across the API. */
export const uuid = () => z.string().check(z.regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'Invalid UUID'));
export const text = (max: number, min = 1) => z.string().check(z.trim(), z.minLength(min), z.maxLength(max));
export const optionalText = (max: number) => z.optional(z.nullable(z.string().check(z.trim(), z.maxLength(max))));
export const email = () =>
  z.string().check(z.trim(), z.maxLength(254), z.email('Invalid e-mail address'), z.toLowerCase());
export const optionalEmail = () => z.optional(z.nullable(email()));
export const isoDateTime = () => z.iso.datetime({ offset: true });

const intFromQuery = (min: number, max: number, fallback: number) =>
  z._default(
    z.pipe(
      z.string().check(z.regex(/^\d{1,6}$/, 'Expected a whole number')),
      z.pipe(z.transform((v: string) => Number(v)), z.number().check(z.int(), z.minimum(min), z.maximum(max))),
    ),
    fallback,
  );

/** page >= 1 (default 1), pageSize 1..100 (default 20). */
export const paging = {
  page: intFromQuery(1, 100_000, 1),
  pageSize: intFromQuery(1, 100, 20),
};

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

export const nullResult = z.null();
