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

  it('leaves the other tools free-form', () => {
    expect(toolParameters({ baseToolCode: 'http_request' })).toEqual({ type: 'object', additionalProperties: true });
    expect(toolParameters({ baseToolCode: 'constructor' })).toEqual({ type: 'object', additionalProperties: true });
  });
});
