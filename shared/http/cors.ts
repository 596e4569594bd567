/** Request headers a browser may send cross-origin: the API's, the widget's session and its idempotency key. */
export const CORS_ALLOW_HEADERS = [
  'authorization',
  'content-type',
  'x-internal-api-key',
  'x-widget-session',
  'idempotency-key',
];
