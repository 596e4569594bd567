import type { RouteDef } from './types.ts';

/**
 * The GET routes that also answer HEAD (the GET's status and headers, no body): the public ones a
 * CDN, a link checker or a calendar client probes (the widget script, the feed, the docs). Every
 * HEAD route is one more of the HTTP API's 300 routes, and all 107 GET routes would need 383;
 * an authenticated GET answers HEAD 405 with `Allow: GET`, locally as deployed.
 */
export const servesHead = (route: Pick<RouteDef, 'method' | 'auth' | 'transport'>) =>
  route.method === 'GET' && route.auth.kind === 'none' && route.transport !== 'stream';
