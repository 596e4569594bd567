import { hitRateLimit, releaseRateLimit } from '#shared/data/rate-limit.ts';
import type { ToolItem } from '#areas/tools/records.ts';
import type { ToolContext } from './definition.ts';

/**
 * How many e-mails a Send Email tool may send: per conversation in an hour (a visitor talking an
 * agent into mailing again and again), and per tool in a day (every conversation together).
 * Fixed, not step 2 parameters: a tenant raising them would be a change a SystemAdmin reviews, and
 * no use of the tool yet needs more (docs/decisions/tools.md, "Send Email").
 */
export const EMAIL_SEND_LIMITS = {
  conversation: { name: 'tool-email-conversation', limit: 5, windowSeconds: 3600 },
  tool: { name: 'tool-email-tool', limit: 50, windowSeconds: 86_400 },
} as const;

/** A turn without a conversation (the playground) counts as a conversation of its own. */
const subjects = (tool: ToolItem, ctx: ToolContext) => ({
  conversation: `${ctx.tenantId}#${tool.id}#${ctx.conversationId ?? ctx.requestId}`,
  tool: `${ctx.tenantId}#${tool.id}`,
});

/**
 * Counts one send against both limits (one atomic ADD each, so parallel calls cannot overshoot);
 * answers why not when either is spent, giving back what it counted.
 */
export async function takeSend(tool: ToolItem, ctx: ToolContext): Promise<string | null> {
  const s = subjects(tool, ctx);
  const now = Date.now();
  const inConversation = await hitRateLimit(EMAIL_SEND_LIMITS.conversation, s.conversation, now);
  if (!inConversation.allowed)
    return `This conversation has sent its ${EMAIL_SEND_LIMITS.conversation.limit} e-mails for this hour; nothing was sent`;
  const byTool = await hitRateLimit(EMAIL_SEND_LIMITS.tool, s.tool, now);
  if (byTool.allowed) return null;
  await releaseRateLimit(EMAIL_SEND_LIMITS.conversation, s.conversation, now);
  return `This tool has sent its ${EMAIL_SEND_LIMITS.tool.limit} e-mails for today; nothing was sent`;
}

/** Gives a send back when the message could not be queued after all. */
export async function releaseSends(tool: ToolItem, ctx: ToolContext) {
  const s = subjects(tool, ctx);
  const now = Date.now();
  await releaseRateLimit(EMAIL_SEND_LIMITS.conversation, s.conversation, now);
  await releaseRateLimit(EMAIL_SEND_LIMITS.tool, s.tool, now);
}
