import { describe, expect, it } from 'vitest';
import { apiDocument } from '#api/openapi/api-document.ts';
import type { ResponseObject } from '#api/openapi/document.ts';

/** The gateway's answers as the document describes them: what a generated client will expect. */
const responsesOf = (path: string, method: 'get' | 'post' | 'put') =>
  apiDocument().paths[path]![method]!.responses as Record<string, ResponseObject>;

describe("the gateway's OpenAPI document", () => {
  it('documents both answers of the model catalog PUT: 201 when it creates, 200 when it replaces', () => {
    const put = responsesOf('/api/llm-gateway/models/{modelId}', 'put');
    expect(put['201']?.description).toEqual(expect.stringMatching(/^Created: /));
    expect(put['200']?.description).toBe('OK');
    expect(put['201']?.content).toEqual(put['200']?.content);
  });

  it('documents a streamed chat completion as text/event-stream beside the JSON one', () => {
    const ok = responsesOf('/api/llm-gateway/v1/chat/completions', 'post')['200']!;
    expect(Object.keys(ok.content ?? {}).sort()).toEqual(['application/json', 'text/event-stream']);
    const events = ok.content?.['text/event-stream']?.schema as { description?: string };
    expect(events.description).toEqual(expect.stringMatching(/`stream: true`/));
    expect(Object.keys(responsesOf('/api/llm-gateway/v1/embeddings', 'post')['200']!.content ?? {})).toEqual([
      'application/json',
    ]);
  });

  it('lists the refusals of a shape on both routes that take one: 400 unsupported_response_format, 502 model_output_invalid', () => {
    for (const path of ['/api/llm-gateway/v1/chat/completions', '/api/llm-gateway/v1/responses']) {
      const responses = responsesOf(path, 'post');
      expect(responses['400']?.description, path).toEqual(expect.stringMatching(/`unsupported_response_format`/));
      expect(responses['502']?.description, path).toEqual(expect.stringMatching(/`model_output_invalid`/));
    }
  });
});
