import { once } from '#shared/routes/types.ts';
import { recipientAllowed } from '#areas/tools/lifecycle.ts';
import type { ToolItem } from '#areas/tools/records.ts';
import { EMAIL_PATTERN } from '#shared/routes/schemas.ts';
import { sendEmail as queueEmail } from '#shared/queue/email.ts';
import * as z from 'zod/mini';
import { defineToolType, type ToolContext, type ToolOutcome } from './definition.ts';
import { releaseSends, takeSend } from './send-limits.ts';

const MAX_SUBJECT = 200;
const MAX_TEXT = 20_000;
const MAX_RECIPIENTS = 10;
/** A header line: a CR or LF would start another header, and no control character belongs in a subject. */
const CONTROL = /\p{Cc}/u;

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const inputSchema = once(() =>
  z.looseObject({
    to: z.optional(
      z
        .union([z.string(), z.array(z.string())])
        .check(z.meta({ description: "The recipient (or recipients), among the tool's; absent: all its addresses" })),
    ),
    subject: z.optional(z.string().check(z.meta({ description: 'One line' }))),
    text: z.optional(z.string().check(z.meta({ description: 'The message' }))),
    body: z.optional(z.string()),
  }),
);

/**
 * Recipients come from the tool's configuration (`configParams.allowedRecipients`), never from
 * the conversation or retrieved text: the model may pick among them, not add any.
 */
async function send(
  tool: ToolItem,
  args: z.output<ReturnType<typeof inputSchema>>,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const allowed = (tool.configParams.allowedRecipients ?? []).map((r) => r.toLowerCase());
  if (!allowed.length) return { ok: false, error: 'This tool has no configured recipients' };
  // Without "to", the configured addresses; a configured domain names nobody in particular.
  // Each address once, whatever its case: ten copies of one address are one recipient.
  const asked = [
    ...new Set(
      args.to === undefined
        ? allowed.filter((r) => r.includes('@'))
        : [args.to].flat().map((r) => r.trim().toLowerCase()),
    ),
  ];
  if (!asked.length) return { ok: false, error: 'Give the recipient as "to"' };
  if (asked.length > MAX_RECIPIENTS) return { ok: false, error: `At most ${MAX_RECIPIENTS} recipients` };
  // A single well-formed address each, so a domain entry cannot be stretched with commas or headers.
  const refused = asked.filter((r) => !EMAIL_PATTERN.test(r) || !recipientAllowed(allowed, r));
  if (refused.length) return { ok: false, error: `Recipients not allowed for this tool: ${refused.join(', ')}` };
  const given = args.subject ?? '';
  if (CONTROL.test(given)) return { ok: false, error: 'The subject must be one line without control characters' };
  const subject = given.slice(0, MAX_SUBJECT) || 'Message from the assistant';
  const text = (args.text ?? args.body ?? '').slice(0, MAX_TEXT);
  if (!text) return { ok: false, error: 'The message text is empty' };
  const refusal = await takeSend(tool, ctx);
  if (refusal) return { ok: false, error: refusal };
  // As all e-mail: queued, and the e-mail worker (the one function allowed to use SES) sends it.
  try {
    await queueEmail({ to: asked, subject, text, html: `<p>${escapeHtml(text).replace(/\n/g, '<br>')}</p>` });
  } catch (err) {
    await releaseSends(tool, ctx);
    throw err;
  }
  return { ok: true, result: { queued: true, to: asked } };
}

/** Send Email: an e-mail to one of the tool's recipients. */
export const sendEmail = defineToolType({
  codes: ['send_email'],
  inputSchema,
  sideEffects: () => true,
  execute: send,
});
