import { describe, expect, it } from 'vitest';

describe('toAnswer', () => {
  it('passes on the status and, when named, the error code of either envelope', () => {
    expect({ status: 201, text: '{"id":"a"}' }).toAnswer(201);
    expect({ status: 409, text: '{"error":{"code":"CONVERSATION_BUSY","message":"m"}}' }).toAnswer(
      409,
      'CONVERSATION_BUSY',
    );
    expect({ status: 400, json: { error: { code: 'invalid_value', type: 'invalid_request_error' } } }).toAnswer(
      400,
      'invalid_value',
    );
    expect({ status: 200, text: 'plain' }).not.toAnswer(404);
  });

  it('prints the body the server answered when the status or the code differs', () => {
    const body = '{"error":{"code":"INTERNAL","message":"boom at line 3"}}';
    expect(() => expect({ status: 500, text: body }).toAnswer(409)).toThrow(
      /expected 409, the server answered 500 INTERNAL:\n.*boom at line 3/s,
    );
    expect(() => expect({ status: 409, text: body }).toAnswer(409, 'CONFLICT')).toThrow(
      /expected 409 CONFLICT, the server answered 409 INTERNAL/,
    );
    expect(() => expect({ status: 200, text: 'x'.repeat(5_000) }).toAnswer(201)).toThrow(/\(5000 characters\)/);
  });
});
