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

type PerCall<A extends unknown[], T> = T | ((...args: A) => T);
type Message = string | ((...args: never[]) => string);
/** The arguments of a definition: its message function's, which the options' functions receive too. */
type ArgsOf<M> = M extends (...args: infer A) => string ? A : [];

export interface ErrorOptions<A extends unknown[]> {
  /** Sent as `Retry-After`: the error says when trying again may succeed. */
  retryAfterSeconds?: PerCall<A, number>;
  headers?: PerCall<A, Record<string, string>>;
  details?: (...args: A) => unknown;
  /** Arguments that give the OpenAPI document an example message, when the message needs some. */
  example?: A;
  /**
   * Why no client ever receives it: a sentinel a use case hands to `orConflict` and catches itself.
   * No route declares it, so the strict check and the no-dead-codes test need the reason instead.
   */
  internal?: string;
}

/** What a route declares of an error it can answer (`RouteDef.errors`), and what the document shows. */
export interface DeclaredError<C extends string = string> {
  readonly status: number;
  readonly code: C;
  /** The document's example message: the fixed one, or the one the definition's example arguments give. */
  readonly message: string | undefined;
  readonly retryAfter: boolean;
  readonly internal: string | undefined;
}

/** One error, defined once: calling it builds the ApiError to throw; a route lists it in `errors`. */
export interface ErrorDef<A extends unknown[] = [], C extends string = string> extends DeclaredError<C> {
  (...args: A): ApiError;
  /** Whether a thrown value was built by this definition (for the use cases that catch their own). */
  is(err: unknown): err is ApiError;
}

const perCall = <A extends unknown[], T>(value: PerCall<A, T> | undefined, args: A) =>
  typeof value === 'function' ? (value as (...args: A) => T)(...args) : value;

function exampleMessage<A extends unknown[]>(message: string | ((...args: A) => string), example?: A) {
  if (typeof message === 'string') return message;
  // A message function whose arguments all have defaults still has one text to show.
  if (example || message.length === 0) return message(...(example ?? ([] as unknown as A)));
  return undefined;
}

export function defineError<const C extends string, M extends Message>(
  status: number,
  code: C,
  message: M,
  options: ErrorOptions<ArgsOf<M>> = {},
): ErrorDef<ArgsOf<M>, C> {
  type A = ArgsOf<M>;
  const build = (...args: A) => {
    const retryAfter = perCall(options.retryAfterSeconds, args);
    const headers = perCall(options.headers, args);
    const all = retryAfter === undefined ? headers : { ...headers, 'retry-after': String(retryAfter) };
    const text = typeof message === 'string' ? message : (message as (...args: A) => string)(...args);
    return new ApiError(status, code, text, options.details?.(...args), all);
  };
  const def = Object.assign(build, {
    status,
    code,
    retryAfter: options.retryAfterSeconds !== undefined,
    internal: options.internal,
    is: (err: unknown): err is ApiError => err instanceof ApiError && err.code === code && err.status === status,
  });
  // The example text is for the OpenAPI document and the tests: built when first read, never at
  // import, where a message that formats numbers would start Intl (about 20 ms of a cold start).
  let example: { text: string | undefined } | undefined;
  Object.defineProperty(def, 'message', {
    enumerable: true,
    get: () => {
      example ??= { text: exampleMessage(message, options.example) };
      return example.text;
    },
  });
  return def as typeof def & Pick<ErrorDef<ArgsOf<M>, C>, 'message'>;
}

// The codes every route may answer by what its definition says (auth, input, method, body): the
// guide's minimum set. An area's own codes live in areas/<area>/errors.ts.
export const invalidJson = defineError(
  400,
  'INVALID_JSON',
  (message: string = 'Request body is not valid JSON') => message,
);
export const validationError = defineError(
  400,
  'VALIDATION_ERROR',
  (_details?: IssueDetail[], message: string = 'Request validation failed') => message,
  { details: (details) => details },
);
export const unauthorized = defineError(401, 'UNAUTHORIZED', (message: string = 'Authentication required') => message);
/** An unknown gateway key on a `gatewayKey` route (the runtime resolves the key). */
export const invalidApiKey = defineError(401, 'INVALID_API_KEY', 'Incorrect API key provided');
export const forbidden = defineError(403, 'FORBIDDEN', (message: string = 'You are not allowed to do this') => message);
export const notFound = defineError(404, 'NOT_FOUND', (what: string = 'Resource') => `${what} not found`);
export const routeNotFound = defineError(404, 'ROUTE_NOT_FOUND', 'No such route');
export const methodNotAllowed = defineError(
  405,
  'METHOD_NOT_ALLOWED',
  (_allowed: string[]) => 'Method not allowed on this route',
  { headers: (allowed) => ({ allow: allowed.join(', ') }) },
);
export const conflict = defineError(409, 'CONFLICT', (message: string) => message);
export const payloadTooLarge = defineError(
  413,
  'PAYLOAD_TOO_LARGE',
  (limitBytes: number, message: string = `Body exceeds ${limitBytes} bytes`) => message,
);
export const unsupportedMediaType = defineError(
  415,
  'UNSUPPORTED_MEDIA_TYPE',
  (expected: string, message: string = `Content-Type must be ${expected}`) => message,
);
export const rateLimited = defineError(
  429,
  'RATE_LIMITED',
  (_retryAfterSeconds: number, message: string = 'Too many requests, try again later') => message,
  { retryAfterSeconds: (seconds) => Math.max(1, Math.ceil(seconds)) },
);
export const internalError = defineError(500, 'INTERNAL_ERROR', 'An unexpected error occurred');
export const serviceUnavailable = defineError(
  503,
  'SERVICE_UNAVAILABLE',
  (_retryAfterSeconds: number = 1) => 'Service busy, try again shortly',
  { retryAfterSeconds: (seconds = 1) => seconds },
);
