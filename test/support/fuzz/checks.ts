import type { InvokeResult } from '#test/support/invoke.ts';

/** Texts that must never reach a client: stack frames, source paths, AWS error names and ARNs. */
const LEAK_PATTERNS: RegExp[] = [
  /\bat \//,
  /\bat file:/,
  /\.ts:\d/,
  /\.js:\d+:\d+/,
  /\bError:/,
  /arn:aws/i,
  /dynamodb/i,
  /ValidationException/,
  /ConditionalCheckFailed/,
  /TransactionCanceled/,
  /ResourceNotFoundException/,
  /\bnode_modules\b/,
  /TypeError|ReferenceError|SyntaxError: /,
];

export const leakIn = (text: string) => LEAK_PATTERNS.find((p) => p.test(text));

/**
 * What every non-2xx answer must look like: a 4xx (never 5xx), the error envelope with an
 * UPPER_SNAKE code and a message, and no stack or AWS text. Returns the problem, or null.
 */
export function errorEnvelopeProblem(res: InvokeResult): string | null {
  if (res.status >= 500) return `status ${res.status}`;
  return envelopeProblem(res);
}

/** The shape alone (for statuses a test expects, 503 included): envelope, UPPER_SNAKE code, no leak. */
export function envelopeProblem(res: InvokeResult): string | null {
  if (res.status < 400) return null;
  if (isOpenAiError(res)) return openAiProblem(res);
  const body = res.json as { success?: unknown; error?: { code?: unknown; message?: unknown } } | undefined;
  if (body?.success !== false) return 'not the error envelope';
  if (typeof body.error?.code !== 'string' || !/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/.test(body.error.code))
    return `code ${String(body.error?.code)}`;
  if (typeof body.error.message !== 'string') return 'no message';
  const leak = leakIn(res.text);
  if (leak) return `leaks ${leak}`;
  return null;
}

/**
 * The LLM gateway's `/v1` routes answer errors in OpenAI's format (`{"error":{"message","type","code"}}`,
 * no `success`), so OpenAI clients read them; the platform code is recovered by `errorCode`.
 */
const isOpenAiError = (res: InvokeResult) =>
  !!res.json && typeof res.json === 'object' && !('success' in res.json) && typeof res.json.error?.type === 'string';

function openAiProblem(res: InvokeResult): string | null {
  const error = res.json.error as { message?: unknown; type?: unknown; code?: unknown };
  if (typeof error.message !== 'string') return 'no message';
  if (typeof error.code !== 'string' || !/^[a-z][a-z0-9_]*$/.test(error.code)) return `code ${String(error.code)}`;
  const leak = leakIn(res.text);
  return leak ? `leaks ${leak}` : null;
}

const FROM_OPENAI: Record<string, string> = {
  invalid_api_key: 'UNAUTHORIZED',
  invalid_request_error: 'VALIDATION_ERROR',
  insufficient_quota: 'TOKEN_LIMIT_REACHED',
  rate_limit_exceeded: 'RATE_LIMITED',
};

/** The platform error code of an answer, whichever of the two formats it is in. */
export const errorCode = (res: InvokeResult): string =>
  isOpenAiError(res)
    ? (FROM_OPENAI[res.json.error.code] ?? String(res.json.error.code).toUpperCase())
    : String(res.json?.error?.code);

/** Attributes of the table's items that are storage, never part of an answer. */
const STORAGE_ATTRIBUTES = new Set(['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'ttl', 'searchText']);

/** Where a JSON answer carries a storage attribute (`result.items.0.gsi1pk`), or null. */
export function storageAttributeIn(value: unknown, path = 'body'): string | null {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = storageAttributeIn(v, `${path}.${i}`);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (STORAGE_ATTRIBUTES.has(k)) return `${path}.${k}`;
      const found = storageAttributeIn(v, `${path}.${k}`);
      if (found) return found;
    }
  }
  return null;
}

/** Counters printed at the end of each hardening file and copied into docs/hardening.md. */
export const stats = {
  requests: 0,
  routes: new Set<string>(),
  byStatus: new Map<number, number>(),
  skipped: [] as { route: string; reason: string }[],
  count(route: string, res: InvokeResult) {
    this.requests++;
    this.routes.add(route);
    this.byStatus.set(res.status, (this.byStatus.get(res.status) ?? 0) + 1);
  },
  skip(route: string, reason: string) {
    if (!this.skipped.some((s) => s.route === route && s.reason === reason)) this.skipped.push({ route, reason });
  },
  print(title: string, extra: Record<string, unknown> = {}) {
    const statuses = Object.fromEntries([...this.byStatus.entries()].sort(([a], [b]) => a - b));
    console.log(
      `[hardening] ${title}: ${this.routes.size} routes, ${this.requests} requests, statuses ${JSON.stringify(statuses)}` +
        (Object.keys(extra).length ? `, ${JSON.stringify(extra)}` : ''),
    );
    for (const s of this.skipped) console.log(`[hardening] ${title}: skipped ${s.route}: ${s.reason}`);
  },
};
