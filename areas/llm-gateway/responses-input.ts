import { validationError } from '#shared/http/errors.ts';
import type { ResponsesBody, ResponsesInputItem } from './responses-body.ts';
import type { ChatMessage, ToolCall, ToolChoice, ToolDef } from './providers/port.ts';
import {
  loadResponses,
  responseOf,
  STORED_RESPONSE_DAYS,
  type OutputItem,
  type StoredResponse,
} from './stored-responses.ts';

/**
 * A Responses request as the chat call the gateway makes: `instructions` first as the system turn,
 * then the stored conversation `previous_response_id` continues, then the input items, references
 * resolved from the stored responses (one read for all of them).
 */
type Part = { type: string; text: string };
const flat = (c: string | Part[]) => (typeof c === 'string' ? c : c.map((p) => p.text).join(''));

/** A stored output item as the input item that repeats it. */
const asInput = (o: OutputItem): ResponsesInputItem =>
  o.type === 'message'
    ? { type: 'message', role: 'assistant', content: o.text }
    : { type: 'function_call', call_id: o.call_id, name: o.name, arguments: o.arguments };

/** Consecutive function calls are one assistant turn with several tool calls, as chat messages have them. */
function append(out: ChatMessage[], item: ResponsesInputItem) {
  switch (item.type) {
    case 'function_call': {
      const call: ToolCall = {
        id: item.call_id,
        type: 'function',
        function: { name: item.name, arguments: item.arguments },
      };
      const last = out.at(-1);
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else out.push({ role: 'assistant', content: null, tool_calls: [call] });
      return;
    }
    case 'function_call_output':
      out.push({ role: 'tool', tool_call_id: item.call_id, content: flat(item.output) });
      return;
    case 'item_reference':
      throw new Error('references are resolved before');
    default: {
      const content = flat(item.content);
      if (item.role === 'assistant') out.push({ role: 'assistant', content });
      else out.push({ role: item.role === 'user' ? 'user' : 'system', content });
    }
  }
}

export const outputMessages = (output: OutputItem[]): ChatMessage[] => {
  const out: ChatMessage[] = [];
  for (const o of output) append(out, asInput(o));
  return out;
};

export interface ResponsesConversation {
  /** What a stored response keeps (the instructions are not carried over, as OpenAI does). */
  conversation: ChatMessage[];
  messages: ChatMessage[];
  tools: ToolDef[] | undefined;
  toolChoice: ToolChoice | undefined;
}

async function storedOf(tenantId: string, body: ResponsesBody, items: ResponsesInputItem[]) {
  const wanted = new Map<string, string>();
  const previous = body.previous_response_id;
  if (previous) {
    const hex = responseOf(previous);
    if (!hex || !previous.startsWith('resp_')) throw notStored('body.previous_response_id', previous);
    wanted.set(previous, hex);
  }
  items.forEach((item, i) => {
    if (item.type !== 'item_reference') return;
    const hex = responseOf(item.id);
    if (!hex || item.id.startsWith('resp_')) throw notStored(`body.input.${i}.id`, item.id);
    wanted.set(item.id, hex);
  });
  return wanted.size ? loadResponses(tenantId, [...wanted.values()]) : new Map<string, StoredResponse>();
}

const notStored = (path: string, id: string) =>
  validationError(
    [
      {
        path,
        message: `No stored response or item '${id}' (responses are kept ${STORED_RESPONSE_DAYS} days when store is not false)`,
      },
    ],
    `No stored response or item '${id}'`,
  );

export async function conversationOf(tenantId: string, body: ResponsesBody): Promise<ResponsesConversation> {
  const items: ResponsesInputItem[] =
    typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : body.input;
  const stored = await storedOf(tenantId, body, items);
  const conversation: ChatMessage[] = [];
  if (body.previous_response_id) {
    const prior = stored.get(responseOf(body.previous_response_id)!);
    if (!prior) throw notStored('body.previous_response_id', body.previous_response_id);
    conversation.push(...prior.conversation);
  }
  for (const [i, item] of items.entries()) {
    if (item.type !== 'item_reference') {
      append(conversation, item);
      continue;
    }
    const found = stored.get(responseOf(item.id)!)?.output.find((o) => o.id === item.id);
    if (!found) throw notStored(`body.input.${i}.id`, item.id);
    append(conversation, asInput(found));
  }
  const instructions = body.instructions ? [{ role: 'system' as const, content: body.instructions }] : [];
  const tools = body.tools?.length
    ? body.tools.map(
        (t): ToolDef => ({
          type: 'function',
          function: {
            name: t.name,
            ...(t.description ? { description: t.description } : {}),
            ...(t.parameters ? { parameters: t.parameters } : {}),
          },
        }),
      )
    : undefined;
  const choice = body.tool_choice;
  const toolChoice: ToolChoice | undefined =
    choice && typeof choice === 'object'
      ? { type: 'function', function: { name: choice.name } }
      : (choice ?? undefined);
  return { conversation, messages: [...instructions, ...conversation], tools, toolChoice };
}
