import { defineError } from '#shared/http/errors.ts';

/** A tenant secret reference that names another tenant's namespace. */
export const secretOutsideNamespace = defineError(
  403,
  'SECRET_OUTSIDE_NAMESPACE',
  "The secret reference is outside this tenant's namespace",
);
