import { once } from '#shared/routes/types.ts';
import { channelById, lastInboundAt, sendChannelMessage, WHATSAPP_WINDOW_MS } from '#areas/channels/for-tools.ts';
import type { ToolItem } from '#areas/tools/records.ts';
import { SEND_TOOL_CHANNELS } from '#areas/tools/built-in-tools.ts';
import * as z from 'zod/mini';
import { defineToolType, type ToolContext, type ToolOutcome } from './definition.ts';

const MAX_TEXT = 4000;

/**
 * The send-message tools (Slack, Teams, WhatsApp, Telegram, Discord): through the tool's configured
 * connection of its platform, to one of its configured recipients (the model picks among them and
 * adds none), queued like every channel send (retries and dead letters in the channels queue).
 * WhatsApp allows a free-form message only within 24 hours of the recipient's last message.
 */
const inputSchema = once(() =>
  z.looseObject({
    to: z.optional(
      z.string().check(z.meta({ description: "The recipient, among the tool's; absent when it has only one" })),
    ),
    text: z.optional(z.string().check(z.meta({ description: 'The message' }))),
    message: z.optional(z.string()),
  }),
);

async function send(
  tool: ToolItem,
  args: z.output<ReturnType<typeof inputSchema>>,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const type = SEND_TOOL_CHANNELS[tool.baseToolCode as keyof typeof SEND_TOOL_CHANNELS];
  const { channelId, allowedChannelRecipients: allowed = [] } = tool.configParams;
  if (!type || !channelId) return { ok: false, error: 'This tool has no channel connection configured' };
  if (!allowed.length) return { ok: false, error: 'This tool has no configured recipients' };
  const to = args.to === undefined && allowed.length === 1 ? allowed[0]! : (args.to ?? '').trim();
  if (!allowed.includes(to)) return { ok: false, error: `Recipient not allowed for this tool: ${to || '(none)'}` };
  const text = (args.text ?? args.message ?? '').slice(0, MAX_TEXT);
  if (!text.trim()) return { ok: false, error: 'The message text is empty' };
  const found = await channelById(channelId);
  if (!found || found.tenantId !== ctx.tenantId || found.connection.type !== type) {
    return { ok: false, error: `The tool's ${type} connection no longer exists` };
  }
  if (!found.connection.isActive) return { ok: false, error: `The tool's ${type} connection is inactive` };
  if (type === 'whatsapp') {
    const last = await lastInboundAt(ctx.tenantId, channelId, to);
    if (!last || Date.now() - Date.parse(last) > WHATSAPP_WINDOW_MS) {
      return {
        ok: false,
        error: "WhatsApp allows a free-form message only within 24 hours of the recipient's last message",
      };
    }
  }
  const { id, settings, secretRefs } = found.connection;
  await sendChannelMessage(
    { tenantId: ctx.tenantId, connection: { id, type, settings, secretRefs }, message: { recipient: to, text } },
    { id: `tool:${ctx.requestId}:${tool.id}:${to}` },
  );
  return { ok: true, result: { queued: true, channel: type, to } };
}

/** The five send-message tools: one type, each platform's through its connection. */
export const sendMessage = defineToolType({
  codes: Object.keys(SEND_TOOL_CHANNELS),
  inputSchema,
  sideEffects: () => true,
  execute: send,
});
