import { describe, expect, it } from 'vitest';
import { apiDocument } from '#api/openapi/api-document.ts';

type Schema = Record<string, unknown>;
const doc = apiDocument() as unknown as {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, Schema> }> }>>;
  components: { schemas: Record<string, Schema> };
};
const resolve = (s: Schema): Schema =>
  typeof s.$ref === 'string' ? resolve(doc.components.schemas[s.$ref.split('/').pop()!]!) : s;
const streamed = (path: string) => doc.paths[path]!.post!.responses['200']!.content!['text/event-stream']!;
const kinds = (path: string) => {
  const data = resolve(streamed(path)['x-sse-data'] as Schema);
  return ((data.anyOf ?? data.oneOf ?? [data]) as Schema[]).map(resolve);
};
const props = (s: Schema) => Object.keys((s.properties ?? {}) as Schema);

describe('streamed answers in the API document', () => {
  it("the widget's send lists its events: the delta, the stored answer and the error", () => {
    const events = kinds('/api/conversations/widget/messages');
    expect(events.map(props)).toEqual([
      ['delta'],
      ['message', 'citations', 'escalated', 'awaitingApproval'],
      ['error'],
    ]);
    expect(events[0]!.required).toEqual(['delta']);
  });

  it("the gateway's chat completions list the chunk object; the Responses API its event types", () => {
    const [chunk] = kinds('/api/llm-gateway/v1/chat/completions');
    expect(props(chunk!)).toEqual(expect.arrayContaining(['id', 'object', 'choices', 'usage']));
    const [event] = kinds('/api/llm-gateway/v1/responses');
    expect((event!.properties as Record<string, Schema>).type!.enum).toEqual(
      expect.arrayContaining(['response.created', 'response.output_text.delta', 'response.completed']),
    );
  });

  it('every route that streams says what its events carry', () => {
    const bare = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.responses?.['200']?.content?.['text/event-stream'])
        .filter(([, op]) => !op.responses['200']!.content!['text/event-stream']!['x-sse-data'])
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(bare).toEqual([]);
  });
});
