import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLambdaInvoker } from '#shared/platform/aws-invoke.ts';

/** The deployed Invoke adapter against a stubbed fetch: the request Lambda's API expects, signed. */
beforeEach(() => {
  vi.stubEnv('AWS_REGION', 'eu-west-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
  vi.stubEnv('AWS_SESSION_TOKEN', 'session-token');
  vi.stubEnv('BROWSER_ACTION_FUNCTION_NAME', 'saas-prod-browser-action');
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

const answering = (status: number, body: string, headers: Record<string, string> = {}) => {
  const fetch = vi.fn(async (_url: string, _init: RequestInit) => new Response(body, { status, headers }));
  vi.stubGlobal('fetch', fetch);
  return fetch;
};

describe('Lambda Invoke, signed', () => {
  it('POSTs the payload to the function named in the environment, RequestResponse, SigV4 for lambda', async () => {
    const fetch = answering(200, '{"ok":true,"result":1}');
    const out = await createLambdaInvoker().invoke('browser-action', { a: 1 }, { timeoutMs: 5000 });
    expect(out).toEqual({ ok: true, result: 1 });
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe(
      'https://lambda.eu-west-1.amazonaws.com/2015-03-31/functions/saas-prod-browser-action/invocations',
    );
    expect(init.method).toBe('POST');
    expect(init.body).toBe('{"a":1}');
    const headers = init.headers as Record<string, string>;
    expect(headers['x-amz-invocation-type']).toBe('RequestResponse');
    expect(headers['x-amz-security-token']).toBe('session-token');
    expect(headers.authorization).toEqual(
      expect.stringMatching(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/lambda\/aws4_request, SignedHeaders=.*host.*x-amz-invocation-type.*, Signature=[0-9a-f]{64}$/,
      ),
    );
    expect(init.signal).toBeInstanceOf(AbortSignal);
  });

  it('throws when the function failed or Lambda refused the call', async () => {
    answering(200, '{"errorMessage":"boom"}', { 'x-amz-function-error': 'Unhandled' });
    await expect(createLambdaInvoker().invoke('browser-action', {}, { timeoutMs: 5000 })).rejects.toThrow(/failed/);
    answering(403, '{"message":"AccessDenied"}');
    await expect(createLambdaInvoker().invoke('browser-action', {}, { timeoutMs: 5000 })).rejects.toThrow(/403/);
  });
});
