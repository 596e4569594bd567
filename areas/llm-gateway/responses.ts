import { ApiError } from '#shared/http/errors.ts';
import { reply, type RawReply, type StreamReply } from '#shared/http/responses.ts';
import { openAiError } from '#shared/http/openai-error.ts';
import { afterAnswer } from '#shared/runtime/after-answer.ts';
import { logger } from '#shared/runtime/logger.ts';
import { sseEvent } from '#shared/runtime/stream.ts';
import { chat, chatStream, type ChatChunk, type ChatResult, type Usage } from './chat.ts';
import { upstreamError } from './errors.ts';
import type { FinishReason } from './providers/port.ts';
import type { Caller } from './records.ts';
import type { ResponsesBody } from './responses-body.ts';
import { conversationOf, outputMessages, type ResponsesConversation } from './responses-input.ts';
import { fromTextFormat, RESPONSES_FORMAT_PARAMS } from './response-format.ts';
import { outputItemId, responseId, saveResponse, type OutputItem } from './stored-responses.ts';

/**
 * OpenAI's Responses API (`POST /v1/responses`) around the same chat()/chatStream() the chat
 * completions route uses: the same admission, budgets, fallbacks, metering and analytics, one call
 * and one record. Streams send the Responses event types; a failure after the stream began is a
 * `response.failed` event.
 */
interface ResponsesContext {
  tenantId: string;
  caller: Caller;
  requestId: string;
}

const seconds = () => Math.floor(Date.now() / 1000);

const wireUsage = (u: Usage) => ({
  input_tokens: u.promptTokens,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: u.completionTokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: u.totalTokens,
});

/** An output item as the wire shows it, with its status. */
function wireItem(o: OutputItem, status: 'in_progress' | 'completed' = 'completed') {
  if (o.type === 'function_call') return { ...o, status };
  return {
    type: 'message',
    id: o.id,
    status,
    role: 'assistant',
    content: status === 'completed' ? [outputText(o.text)] : [],
  };
}
const outputText = (text: string) => ({ type: 'output_text', text, annotations: [], logprobs: [] });

interface Outcome {
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  model: string;
  output: OutputItem[];
  usage: Usage | null;
  error?: { code: string; message: string } | null;
  finishReason?: FinishReason;
}

/** The Response object: what the plain answer is, and what the stream's lifecycle events carry. */
function responseObject(ctx: ResponsesContext, body: ResponsesBody, createdAt: number, o: Outcome) {
  return {
    id: responseId(ctx.requestId),
    object: 'response',
    created_at: createdAt,
    status: o.status,
    error: o.error ?? null,
    incomplete_details: o.status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: o.model,
    output: o.output.map((item) => wireItem(item)),
    parallel_tool_calls: true,
    previous_response_id: body.previous_response_id ?? null,
    store: body.store !== false,
    temperature: body.temperature ?? 1,
    text: textEcho(body),
    tool_choice: body.tool_choice ?? 'auto',
    tools: (body.tools ?? []).map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description ?? null,
      parameters: t.parameters ?? null,
      strict: t.strict ?? null,
    })),
    top_p: 1,
    truncation: 'disabled',
    usage: o.usage ? wireUsage(o.usage) : null,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
}

/** The format as OpenAI echoes it: every field of a JSON Schema format, `strict` defaulting to false. */
function textEcho(body: ResponsesBody) {
  const f = body.text?.format;
  const format =
    f?.type === 'json_schema'
      ? {
          type: 'json_schema',
          name: f.name,
          description: f.description ?? null,
          schema: f.schema,
          strict: f.strict === true,
        }
      : { type: f?.type ?? 'text' };
  return { format, verbosity: body.text?.verbosity ?? 'medium' };
}

const statusOf = (finish: FinishReason) => (finish === 'length' ? 'incomplete' : 'completed');

function outputOf(requestId: string, r: ChatResult): OutputItem[] {
  const out: OutputItem[] = [];
  if (r.message.content) out.push({ type: 'message', id: outputItemId(requestId, 'msg', 0), text: r.message.content });
  for (const call of r.message.toolCalls) {
    out.push({
      type: 'function_call',
      id: outputItemId(requestId, 'fc', out.length),
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  }
  return out;
}

/** Kept for `previous_response_id` and `item_reference`, after the answer, unless the caller said `store: false`. */
function keep(ctx: ResponsesContext, body: ResponsesBody, conv: ResponsesConversation, output: OutputItem[]) {
  if (body.store === false) return;
  const conversation = [...conv.conversation, ...outputMessages(output)];
  afterAnswer(() => saveResponse(ctx.tenantId, ctx.requestId, { conversation, output }));
}

/** Responses events of a started stream, numbered in order (`sequence_number`). */
async function* responseEvents(
  ctx: ResponsesContext,
  body: ResponsesBody,
  conv: ResponsesConversation,
  first: ChatChunk,
  rest: AsyncIterator<ChatChunk>,
): AsyncGenerator<string> {
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) =>
    sseEvent({ type, sequence_number: sequence++, ...data }, type);
  const createdAt = seconds();
  let model = first.type === 'start' ? first.model : body.model;
  const output: OutputItem[] = [];
  let open: Extract<OutputItem, { type: 'message' }> | null = null;
  const snapshot = (o: Omit<Outcome, 'model' | 'output'>) =>
    responseObject(ctx, body, createdAt, { model, output: [...output], ...o });

  function* closeMessage() {
    if (!open) return;
    const item = open;
    open = null;
    const at = { item_id: item.id, output_index: output.indexOf(item), content_index: 0 };
    yield event('response.output_text.done', { ...at, text: item.text, logprobs: [] });
    yield event('response.content_part.done', { ...at, part: outputText(item.text) });
    yield event('response.output_item.done', { output_index: at.output_index, item: wireItem(item) });
  }

  yield event('response.created', { response: snapshot({ status: 'in_progress', usage: null }) });
  yield event('response.in_progress', { response: snapshot({ status: 'in_progress', usage: null }) });
  let current: ChatChunk | undefined = first;
  try {
    while (current) {
      switch (current.type) {
        case 'start':
          model = current.model;
          break;
        case 'text': {
          if (!open) {
            open = { type: 'message', id: outputItemId(ctx.requestId, 'msg', output.length), text: '' };
            output.push(open);
            const index = output.length - 1;
            yield event('response.output_item.added', { output_index: index, item: wireItem(open, 'in_progress') });
            yield event('response.content_part.added', {
              item_id: open.id,
              output_index: index,
              content_index: 0,
              part: outputText(''),
            });
          }
          open.text += current.text;
          yield event('response.output_text.delta', {
            item_id: open.id,
            output_index: output.indexOf(open),
            content_index: 0,
            delta: current.text,
            logprobs: [],
          });
          break;
        }
        case 'tool_call': {
          yield* closeMessage();
          const { call } = current;
          const item: OutputItem = {
            type: 'function_call',
            id: outputItemId(ctx.requestId, 'fc', output.length),
            call_id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
          };
          output.push(item);
          const at = { item_id: item.id, output_index: output.length - 1 };
          yield event('response.output_item.added', {
            output_index: at.output_index,
            item: { ...wireItem(item, 'in_progress'), arguments: '' },
          });
          yield event('response.function_call_arguments.delta', { ...at, delta: item.arguments });
          yield event('response.function_call_arguments.done', { ...at, name: item.name, arguments: item.arguments });
          yield event('response.output_item.done', { output_index: at.output_index, item: wireItem(item) });
          break;
        }
        case 'done': {
          yield* closeMessage();
          model = current.model;
          const status = statusOf(current.finishReason);
          keep(ctx, body, conv, output);
          yield event(status === 'completed' ? 'response.completed' : 'response.incomplete', {
            response: snapshot({ status, usage: current.usage }),
          });
          return;
        }
      }
      const next: IteratorResult<ChatChunk> = await rest.next();
      current = next.done ? undefined : next.value;
    }
  } catch (err) {
    // Past the first event only the model can fail (admission is behind us): named as the provider's failure.
    logger.warn('response stream failed after it began', { requestId: ctx.requestId, error: err as Error });
    const { code, message } = openAiError(err instanceof ApiError ? err : upstreamError());
    yield event('response.failed', { response: snapshot({ status: 'failed', usage: null, error: { code, message } }) });
  } finally {
    await rest.return?.(undefined);
  }
}

/** POST /v1/responses: refusals are thrown before anything is sent (so they keep their HTTP status). */
export async function responses(ctx: ResponsesContext, body: ResponsesBody): Promise<RawReply | StreamReply> {
  const conv = await conversationOf(ctx.tenantId, body);
  const call = {
    ...ctx,
    model: body.model,
    messages: conv.messages,
    tools: conv.tools,
    toolChoice: conv.toolChoice,
    temperature: body.temperature ?? undefined,
    maxTokens: body.max_output_tokens ?? undefined,
    responseFormat: fromTextFormat(body.text?.format),
    formatParams: RESPONSES_FORMAT_PARAMS,
    later: afterAnswer,
  };
  const headers = { 'x-request-id': ctx.requestId };
  if (!body.stream) {
    const createdAt = seconds();
    const r = await chat(call);
    const output = outputOf(ctx.requestId, r);
    keep(ctx, body, conv, output);
    const answer = responseObject(ctx, body, createdAt, {
      status: statusOf(r.finishReason),
      model: r.model,
      output,
      usage: r.usage,
    });
    return reply.raw('application/json', JSON.stringify(answer), { headers });
  }
  const stream = chatStream(call);
  const first = await stream.next();
  if (first.done) throw new Error('chat stream ended before it started');
  return reply.stream(responseEvents(ctx, body, conv, first.value, stream), { headers });
}
