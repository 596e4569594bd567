import type { z } from 'zod/mini';
import type { ToolItem } from '#areas/tools/records.ts';
import { toParams } from '#areas/tools/records.ts';
import {
  budgetOf,
  stepsRefusal,
  stepsSchema,
  withinSteps,
  type BrowserActionRequest,
} from '#areas/tools/browser/steps.ts';
import { functionInvoker } from '#shared/platform/ports.ts';
import { logger } from '#shared/runtime/logger.ts';
import { defineToolType, summaryOf, type ToolContext, type ToolOutcome } from './definition.ts';

/** Chromium's start (unpacking it on a cold function) on top of the tool's own time. */
export const START_GRACE_MS = 8_000;

const UNAVAILABLE = 'The browser is not available right now; nothing was done';

/**
 * A web page's text and screenshot links (a presigned link alone is over 1,000 characters deployed)
 * would be cut short at the usual summary; the browser bounds what it answers itself.
 */
const WEB_PAGE_SUMMARY = 6000;

async function browse(
  tool: ToolItem,
  args: z.output<ReturnType<typeof stepsSchema>>,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const budget = budgetOf(toParams(tool));
  if (!budget.allowedHosts.length) return { ok: false, error: 'This tool has no allowed hosts; nothing was done' };
  const tooMany = withinSteps(args.steps, budget.maxSteps);
  if (tooMany) return { ok: false, error: tooMany };
  const request: BrowserActionRequest = {
    tenantId: ctx.tenantId,
    toolId: tool.id,
    requestId: ctx.requestId,
    budget,
    steps: args.steps,
  };
  let answer: unknown;
  try {
    const invoker = await functionInvoker();
    answer = await invoker.invoke('browser-action', request, {
      timeoutMs: budget.timeoutSeconds * 1000 + START_GRACE_MS,
    });
  } catch (err) {
    logger.warn('browser action unavailable', {
      requestId: ctx.requestId,
      error: err instanceof Error ? err.message : String(err),
    });
    return { ok: false, error: UNAVAILABLE, untrusted: 'web-page' };
  }
  const a = answer as { ok?: unknown; error?: unknown; result?: unknown } | null;
  if (a?.ok === true) return { ok: true, result: a.result, untrusted: 'web-page' };
  if (a?.ok === false && typeof a.error === 'string')
    return { ok: false, error: a.error.slice(0, 1000), untrusted: 'web-page' };
  return { ok: false, error: UNAVAILABLE, untrusted: 'web-page' };
}

/**
 * Browser Action: the steps are checked here (a bad call costs no browser), then the browser
 * function runs them (Chromium is in that function's bundle only) and this turn waits for it
 * within the tool's time. Whatever it answers is page content: marked untrusted. Every call may act
 * on a page (a click, a form): it always counts as changing something.
 */
export const browserAction = defineToolType({
  codes: ['browser_action'],
  inputSchema: stepsSchema,
  sideEffects: () => true,
  execute: browse,
  toModelOutput: summaryOf(WEB_PAGE_SUMMARY),
  refuseArguments: stepsRefusal,
});
