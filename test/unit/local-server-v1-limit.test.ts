import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localListener } from '#test/support/local-listener.ts';

/** A body over the local server's own limit, on the LLM gateway's /v1, answers in OpenAI's shape, as its other errors do. */
let local: Awaited<ReturnType<typeof localListener>>;
beforeAll(async () => {
  local = await localListener(async () => ({ statusCode: 200, body: '{}' }));
});
afterAll(() => local.close());

const big = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(4096) }] });

describe('the local body limit on /v1', () => {
  it("answers 413 in OpenAI's error shape, without calling the handler", async () => {
    const res = await fetch(`${local.base}/api/llm-gateway/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: big,
    });
    const json = await res.json();
    expect({ status: res.status, json }).toAnswer(413, 'payload_too_large');
    expect(json).toEqual({
      error: {
        message: expect.stringMatching(/bytes/),
        type: 'invalid_request_error',
        code: 'payload_too_large',
        param: null,
      },
    });
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(local.calls).toEqual([]);
  });

  it('still answers the envelope elsewhere', async () => {
    const res = await fetch(`${local.base}/api/agents`, { method: 'POST', body: big });
    expect({ status: res.status, json: await res.json() }).toAnswer(413, 'PAYLOAD_TOO_LARGE');
  });
});
