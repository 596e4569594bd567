/** An error a client is meant to see: status, machine code and a safe message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface IssueDetail {
  path: string;
  message: string;
}

export const invalidJson = (message = 'Request body is not valid JSON') => new ApiError(400, 'INVALID_JSON', message);
export const validationError = (details: IssueDetail[], message = 'Request validation failed') =>
  new ApiError(400, 'VALIDATION_ERROR', message, details);
export const badRequest = (code: string, message: string) => new ApiError(400, code, message);
export const unauthorized = (message = 'Authentication required', code = 'UNAUTHORIZED') =>
  new ApiError(401, code, message);
export const forbidden = (message = 'You are not allowed to do this', code = 'FORBIDDEN') =>
  new ApiError(403, code, message);
export const notFound = (what = 'Resource') => new ApiError(404, 'NOT_FOUND', `${what} not found`);
export const routeNotFound = () => new ApiError(404, 'ROUTE_NOT_FOUND', 'No such route');
export const methodNotAllowed = (allowed: string[]) =>
  new ApiError(405, 'METHOD_NOT_ALLOWED', 'Method not allowed on this route', undefined, {
    allow: allowed.join(', '),
  });
export const conflict = (message: string, code = 'CONFLICT') => new ApiError(409, code, message);
export const payloadTooLarge = (limitBytes: number) =>
  new ApiError(413, 'PAYLOAD_TOO_LARGE', `Body exceeds ${limitBytes} bytes`);
export const unsupportedMediaType = (expected: string) =>
  new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${expected}`);
export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(429, 'RATE_LIMITED', 'Too many requests, try again later', undefined, {
    'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });
export const serviceUnavailable = (retryAfterSeconds = 1) =>
  new ApiError(503, 'SERVICE_UNAVAILABLE', 'Service busy, try again shortly', undefined, {
    'retry-after': String(retryAfterSeconds),
  });
export const internalError = () => new ApiError(500, 'INTERNAL_ERROR', 'An unexpected error occurred');
