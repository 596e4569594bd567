import { createHash } from 'node:crypto';
import type { RouteDef } from '#shared/routes/types.ts';

const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 8);

/**
 * A request's path as a log may hold it: each of the route's credential parameters replaced by
 * `{name:digest}`. The digest prefix still tells two callers apart and matches a token the reader
 * already holds, but 32 bits of a hash give nothing back of a 256-bit secret. A path that does not
 * line up with the template (an alias) is logged as the template.
 */
export function loggedPath(route: Pick<RouteDef, 'path' | 'credentialParams'> | null | undefined, rawPath: string) {
  const secret = route?.credentialParams;
  if (!route || !secret?.length) return rawPath;
  const template = route.path.split('/');
  const actual = rawPath.split('/');
  if (template.length !== actual.length) return route.path;
  return actual
    .map((segment, i) => {
      const name = /^\{(\w+)\}$/.exec(template[i]!)?.[1];
      return name && secret.includes(name) ? `{${name}:${digest(segment)}}` : segment;
    })
    .join('/');
}
