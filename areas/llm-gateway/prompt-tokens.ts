import type { ChatMessage, ResponseFormat, ToolDef } from './providers/port.ts';
import { countTokens } from './tokens.ts';

/**
 * The prompt's tokens as the gateway counts them for reservations and as the local model reports
 * them: each message's role and text (tool calls as their JSON), plus the tools' and the response
 * format's JSON, with the real tokenizer. A remote provider reports its own count, which settles
 * the call.
 */
export async function promptTokens(
  messages: readonly ChatMessage[],
  tools?: readonly ToolDef[],
  responseFormat?: ResponseFormat,
): Promise<number> {
  let total = 0;
  for (const m of messages) {
    total += await countTokens(`${m.role}: ${m.content ?? ''}`);
    if (m.role === 'assistant' && m.tool_calls?.length) total += await countTokens(JSON.stringify(m.tool_calls));
  }
  if (tools?.length) total += await countTokens(JSON.stringify(tools));
  if (responseFormat) total += await countTokens(JSON.stringify(responseFormat));
  return total;
}
