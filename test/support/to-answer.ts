import { expect } from 'vitest';

/** What a test holds of an answer: `invoke`'s result, a fetched answer read into these fields, an SDK's error. */
interface Answer {
  status: number;
  text?: string;
  json?: unknown;
  body?: unknown;
}

/** The error code of either envelope: the platform's `{error: {code}}` and OpenAI's `{error: {code, type}}`. */
function errorCode(json: unknown): string | undefined {
  const error = (json as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' ? error.code : undefined;
}

function bodyOf(res: Answer): { text: string; json: unknown } {
  if (typeof res.text === 'string') {
    let json = res.json;
    if (json === undefined) {
      try {
        json = JSON.parse(res.text);
      } catch {}
    }
    return { text: res.text, json };
  }
  const json = res.json ?? res.body;
  return { text: typeof json === 'string' ? json : JSON.stringify(json), json };
}

const SHOWN = 2_000;

expect.extend({
  /**
   * `expect(res).toAnswer(409, 'CONVERSATION_BUSY')`: the status, and the error code when one is
   * named; a failure prints what the server answered, not only "expected 500 to be 409".
   */
  toAnswer(received: Answer, status: number, code?: string) {
    const { text, json } = bodyOf(received);
    const actualCode = errorCode(json);
    const pass = received.status === status && (code === undefined || actualCode === code);
    const wanted = code === undefined ? `${status}` : `${status} ${code}`;
    const got = `${received.status}${actualCode ? ` ${actualCode}` : ''}`;
    const shown = text.length > SHOWN ? `${text.slice(0, SHOWN)}… (${text.length} characters)` : text;
    return {
      pass,
      message: () =>
        pass
          ? `expected an answer other than ${wanted}, got it:\n${shown}`
          : `expected ${wanted}, the server answered ${got}:\n${shown}`,
    };
  },
});

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: the declaration merges with vitest's own, which defaults to any
  interface Assertion<T = any> {
    toAnswer(status: number, code?: string): T;
  }
  interface AsymmetricMatchersContaining {
    toAnswer(status: number, code?: string): unknown;
  }
}
