import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { toolParameters } from '#areas/tools/for-agents.ts';

/** What a model is told a tool takes: a JSON Schema it can follow, accepting what the executor accepts. */
describe('tool parameters offered to the model', () => {
  const validate = new Ajv2020({ strict: true }).compile(toolParameters({ baseToolCode: 'manage_schedule' }));

  it('names Manage Schedule actions and arguments, and accepts a booking as the executor takes it', () => {
    expect(validate({ action: 'book', start: '2027-03-26T08:00:00.000Z', name: 'Ann', email: 'ann@example.com' })).toBe(
      true,
    );
    expect(validate({ action: 'find_slots', from: '2027-03-26', to: '2027-03-29' })).toBe(true);
    expect(validate({ action: 'dance' })).toBe(false);
    expect(validate({ start: '2027-03-26T08:00:00.000Z' })).toBe(false);
  });

  it("tells every built-in tool's arguments as its type parses them; an unknown code stays free-form", () => {
    const accepts = (code: string, args: unknown) =>
      new Ajv2020({ strict: false }).compile(toolParameters({ baseToolCode: code }))(args);
    expect(accepts('http_request', { url: 'https://api.example.com/orders', method: 'POST', body: { id: 1 } })).toBe(
      true,
    );
    expect(accepts('http_request', { method: 'GET' })).toBe(false);
    expect(accepts('db_query', { sql: 'SELECT 1', params: [1] })).toBe(true);
    expect(accepts('send_email', { to: ['desk@example.com'], subject: 'Hi', text: 'Hello' })).toBe(true);
    expect(accepts('send_slack_message', { to: 'C0DESK', text: 'Hello' })).toBe(true);
    expect(accepts('browser_action', { steps: [{ action: 'navigate', url: 'https://shop.example.com' }] })).toBe(true);
    expect(accepts('browser_action', { steps: [{ action: 'dance' }] })).toBe(false);
    for (const code of ['http_request', 'db_query', 'send_email', 'send_slack_message', 'browser_action'])
      expect(
        Object.keys((toolParameters({ baseToolCode: code }) as { properties: object }).properties),
        code,
      ).not.toEqual([]);
    expect(toolParameters({ baseToolCode: 'constructor' })).toEqual({ type: 'object', additionalProperties: true });
  });
});
