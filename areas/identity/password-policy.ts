import * as z from 'zod/mini';

const PASSWORD_MIN = 8;
const PASSWORD_MAX = 256;

/**
 * The one password policy (registration, reset, change, and any admin-set password): 8 to 256
 * characters with an uppercase letter, a lowercase letter and a digit.
 */
export const newPassword = () =>
  z
    .string()
    .check(
      z.minLength(PASSWORD_MIN, `Must be at least ${PASSWORD_MIN} characters`),
      z.maxLength(PASSWORD_MAX, `Must be at most ${PASSWORD_MAX} characters`),
      z.regex(/[A-Z]/, 'Must contain an uppercase letter'),
      z.regex(/[a-z]/, 'Must contain a lowercase letter'),
      z.regex(/[0-9]/, 'Must contain a digit'),
    );

/** A password being presented (sign-in, current password): any non-empty value up to the cap. */
export const givenPassword = () => z.string().check(z.minLength(1), z.maxLength(PASSWORD_MAX));
