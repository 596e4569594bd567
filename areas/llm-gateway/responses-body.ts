import * as z from 'zod/mini';
import { text } from '#shared/routes/schemas.ts';
import { formatName, formatSchema } from './format-schemas.ts';
import { GATEWAY_LIMITS as L } from './limits.ts';

/**
 * The body of `POST /v1/responses` (OpenAI's Responses API) the gateway honours: text and message
 * items, function tools and their call/result items, references to stored items. Anything it would
 * have to drop silently (images, files, built-in tools, background runs) is refused by name.
 */
const chars = () => z.string().check(z.maxLength(L.messageChars));
const textPart = () =>
  z.object({
    type: z.enum(['input_text', 'output_text'], { error: 'Only text parts are supported (input_text, output_text)' }),
    text: chars(),
  });
const partsOrText = () => z.union([chars(), z.array(textPart()).check(z.maxLength(100))]);
const itemId = () => z.optional(z.nullable(text(200)));

const messageItem = () =>
  z.object({
    type: z.optional(z.literal('message')),
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: partsOrText(),
    id: itemId(),
  });
const functionCallItem = () =>
  z.object({
    type: z.literal('function_call'),
    call_id: text(100),
    name: text(64),
    arguments: chars(),
    id: itemId(),
  });
const functionOutputItem = () =>
  z.object({
    type: z.literal('function_call_output'),
    call_id: text(100),
    output: partsOrText(),
    id: itemId(),
  });
const referenceItem = () => z.object({ type: z.literal('item_reference'), id: text(200) });

const inputItem = () =>
  z.union([messageItem(), functionCallItem(), functionOutputItem(), referenceItem()], {
    error:
      'Expected a message, function_call, function_call_output or item_reference item (other item types are not supported)',
  });

const functionTool = () =>
  z.object({
    type: z.literal('function', { error: 'Only function tools are supported' }),
    name: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'Expected 1-64 of A-Z a-z 0-9 _ -')),
    description: z.optional(z.nullable(z.string().check(z.maxLength(1024)))),
    parameters: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
    strict: z.optional(z.nullable(z.boolean())),
  });
const toolChoice = () =>
  z.union([z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function'), name: text(64) })]);
/** `text`: its format (text, JSON mode or a JSON Schema); verbosity is a hint, echoed. */
const textConfig = () =>
  z.object({
    format: z.optional(
      z.nullable(
        z.union(
          [
            z.object({ type: z.literal('text') }),
            z.object({ type: z.literal('json_object') }),
            z.object({
              type: z.literal('json_schema'),
              name: formatName(),
              description: z.optional(z.nullable(z.string().check(z.maxLength(1024)))),
              schema: formatSchema(),
              strict: z.optional(z.nullable(z.boolean())),
            }),
          ],
          { error: 'Expected a text format of type text, json_object or json_schema' },
        ),
      ),
    ),
    verbosity: z.optional(z.nullable(z.enum(['low', 'medium', 'high']))),
  });
const unsupported = (why: string) =>
  z.optional(z.union([z.null(), z.literal(false)], { error: `Not supported: ${why}` }));

export const responsesBody = () =>
  z.object({
    model: text(200),
    input: z.union([chars(), z.array(inputItem()).check(z.minLength(1), z.maxLength(L.messages))]),
    instructions: z.optional(z.nullable(chars())),
    tools: z.optional(z.nullable(z.array(functionTool()).check(z.maxLength(L.tools)))),
    tool_choice: z.optional(z.nullable(toolChoice())),
    max_output_tokens: z.optional(z.nullable(z.int().check(z.minimum(1), z.maximum(L.maxTokens)))),
    temperature: z.optional(z.nullable(z.number().check(z.minimum(0), z.maximum(2)))),
    stream: z.optional(z.nullable(z.boolean())),
    store: z.optional(z.nullable(z.boolean())),
    previous_response_id: z.optional(z.nullable(text(200))),
    metadata: z.optional(z.nullable(z.record(z.string().check(z.maxLength(64)), z.string().check(z.maxLength(512))))),
    user: z.optional(z.nullable(z.string().check(z.maxLength(256)))),
    text: z.optional(z.nullable(textConfig())),
    background: unsupported('background responses (the answer is given in the call)'),
  });

export type ResponsesBody = z.infer<ReturnType<typeof responsesBody>>;
export type ResponsesInputItem = z.infer<ReturnType<typeof inputItem>>;
